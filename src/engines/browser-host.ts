import type { Engine } from '../shared/database-engine.js';
import { BrowserError, type DatabaseBrowser, type EngineEndpoint } from './browser.js';
import { createBrowser } from './browsers.js';

/**
 * The child process the database drivers live in (see remote-browser.ts). It opens one browser per key,
 * runs the calls the parent sends, and exits once it has had nothing open for a minute,
 * so their memory goes back to the system.
 */
export type HostRequest =
  | { id: number; op: 'open'; key: string; engine: Engine; endpoint: EngineEndpoint }
  | { id: number; op: 'call'; key: string; method: BrowserMethod; args: unknown[] }
  | { id: number; op: 'close'; key: string };

export type BrowserMethod = 'ping' | 'tables' | 'rows' | 'query' | 'insertRow' | 'updateRow' | 'deleteRow';

export type HostReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; kind: BrowserError['kind'] | null; message: string };

const browsers = new Map<string, Promise<DatabaseBrowser>>();
const IDLE_MS = 60_000;
let idle: NodeJS.Timeout | null = null;

function watchIdle() {
  if (idle) clearTimeout(idle);
  idle = browsers.size === 0 ? setTimeout(() => process.exit(0), IDLE_MS) : null;
}

async function handle(request: HostRequest): Promise<unknown> {
  switch (request.op) {
    case 'open':
      if (!browsers.has(request.key)) {
        const opening = createBrowser(request.engine, request.endpoint);
        browsers.set(request.key, opening);
        opening.catch(() => browsers.get(request.key) === opening && browsers.delete(request.key));
      }
      await browsers.get(request.key);
      return null;
    case 'call': {
      const browser = await browsers.get(request.key);
      if (!browser) throw new BrowserError('unavailable', 'the connection was closed');
      const method = browser[request.method] as (...args: unknown[]) => Promise<unknown>;
      return method.apply(browser, request.args);
    }
    case 'close': {
      const browser = browsers.get(request.key);
      browsers.delete(request.key);
      await (await browser)?.close();
      return null;
    }
  }
}

process.on('message', (request: HostRequest) => {
  if (idle) clearTimeout(idle);
  handle(request).then(
    (value) => process.send!({ id: request.id, ok: true, value } satisfies HostReply),
    (error: unknown) =>
      process.send!({
        id: request.id,
        ok: false,
        kind: error instanceof BrowserError ? error.kind : null,
        message: error instanceof Error ? error.message : String(error),
      } satisfies HostReply),
  ).finally(watchIdle);
});
// The parent went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
watchIdle();
