import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../../commands/service/fields.js';
import { BrowserError, type DatabaseBrowser, type EngineEndpoint } from './browser.js';
import type { BrowserMethod, HostReply, HostRequest } from './browser-host.js';

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/**
 * Database drivers (pg, mysql2, ioredis, the ClickHouse and MongoDB clients) weigh 12–20 MB each once
 * loaded, and a loaded module is never given back. They run in a child process that exits when nothing has
 * been open for a minute, so an idle Slipway stays small however many engines it has browsed.
 */
class BrowserHost {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private next = 1;

  send(request: WithoutId<HostRequest>): Promise<unknown> {
    const child = this.child ?? this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // While answers are awaited the channel keeps the process alive; otherwise it does not.
      child.channel?.ref();
      child.send({ ...request, id } as HostRequest, (error) => {
        if (error) this.settle({ id, ok: false, kind: 'unavailable', message: `the database connection process is gone: ${error.message}` });
      });
    });
  }

  private start(): ChildProcess {
    // The same file kind as this module: TypeScript under the test runner, JavaScript when built.
    const entry = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './browser-host.ts' : './browser-host.js', import.meta.url));
    const child = fork(entry, [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.on('message', (reply: HostReply) => this.settle(reply));
    child.on('exit', () => {
      if (this.child === child) this.child = null;
      for (const [id] of this.pending) this.settle({ id, ok: false, kind: 'unavailable', message: 'the database connection process exited' });
    });
    // It must not keep Slipway (or a test) alive on its own.
    child.unref();
    child.channel?.unref();
    this.child = child;
    return child;
  }

  private settle(reply: HostReply) {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.child?.channel?.unref();
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(reply.kind ? new BrowserError(reply.kind, reply.message) : new Error(reply.message));
  }
}

const host = new BrowserHost();
let opened = 0;

/** A browser whose driver runs in the shared child process; same contract as the local ones. */
export async function createRemoteBrowser(engine: Engine, endpoint: EngineEndpoint): Promise<DatabaseBrowser> {
  const key = `b${++opened}`;
  const call = (method: BrowserMethod, ...args: unknown[]) => host.send({ op: 'call', key, method, args });
  await host.send({ op: 'open', key, engine, endpoint });
  return {
    engine,
    ping: () => call('ping') as Promise<void>,
    tables: (options) => call('tables', options) as ReturnType<DatabaseBrowser['tables']>,
    rows: (table, page) => call('rows', table, page) as ReturnType<DatabaseBrowser['rows']>,
    query: (text, limits) => call('query', text, limits) as ReturnType<DatabaseBrowser['query']>,
    insertRow: (table, values) => call('insertRow', table, values) as ReturnType<DatabaseBrowser['insertRow']>,
    updateRow: (table, primaryKey, values) => call('updateRow', table, primaryKey, values) as Promise<void>,
    deleteRow: (table, primaryKey) => call('deleteRow', table, primaryKey) as Promise<void>,
    close: async () => {
      await host.send({ op: 'close', key }).catch(() => undefined);
    },
  };
}
