import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../shared/database-engine.js';
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

  /** Answers what the child replies, or `unavailable` once `deadlineMs` pass without a reply (a late one is dropped). */
  send(request: WithoutId<HostRequest>, deadlineMs: number): Promise<unknown> {
    const child = this.child ?? this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const deadline = setTimeout(
        () => this.settle({ id, ok: false, kind: 'unavailable', message: `${NO_ANSWER} within ${Math.round(deadlineMs / 1000)} s` }),
        deadlineMs,
      );
      deadline.unref();
      this.pending.set(id, {
        resolve: (value) => (clearTimeout(deadline), resolve(value)),
        reject: (error) => (clearTimeout(deadline), reject(error)),
      });
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

const NO_ANSWER = 'the database did not answer';
/** The last bound on any call, past the drivers' own timeouts: a request to a database never waits longer. */
const CALL_DEADLINE_MS = 90_000;
/** A console statement gets its own limit and this much more (the drivers cancel it first). */
const QUERY_GRACE_MS = 30_000;
const OPEN_DEADLINE_MS = 30_000;
const CLOSE_DEADLINE_MS = 10_000;

/**
 * A browser whose driver runs in the shared child process; same contract as the local ones. A call the child did
 * not answer in time leaves its connections suspect: they are closed and the next call opens new ones.
 */
export async function createRemoteBrowser(engine: Engine, endpoint: EngineEndpoint): Promise<DatabaseBrowser> {
  const open = async () => {
    const key = `b${++opened}`;
    await host.send({ op: 'open', key, engine, endpoint }, OPEN_DEADLINE_MS);
    return key;
  };
  let current = Promise.resolve(await open());
  const call = async (method: BrowserMethod, deadlineMs: number, ...args: unknown[]) => {
    const opening = current;
    let key: string;
    try {
      key = await opening;
    } catch (error) {
      if (current === opening) current = open();
      throw error;
    }
    try {
      return await host.send({ op: 'call', key, method, args }, deadlineMs);
    } catch (error) {
      if (error instanceof BrowserError && error.message.startsWith(NO_ANSWER) && current === opening) {
        void host.send({ op: 'close', key }, CLOSE_DEADLINE_MS).catch(() => undefined);
        current = open();
        current.catch(() => undefined);
      }
      throw error;
    }
  };
  const browse = (method: BrowserMethod, ...args: unknown[]) => call(method, CALL_DEADLINE_MS, ...args);
  return {
    engine,
    ping: () => browse('ping') as Promise<void>,
    tables: (options) => browse('tables', options) as ReturnType<DatabaseBrowser['tables']>,
    rows: (table, page) => browse('rows', table, page) as ReturnType<DatabaseBrowser['rows']>,
    query: (text, limits) => call('query', limits.timeoutMs + QUERY_GRACE_MS, text, limits) as ReturnType<DatabaseBrowser['query']>,
    insertRow: (table, values) => browse('insertRow', table, values) as ReturnType<DatabaseBrowser['insertRow']>,
    updateRow: (table, primaryKey, values) => browse('updateRow', table, primaryKey, values) as Promise<void>,
    deleteRow: (table, primaryKey) => browse('deleteRow', table, primaryKey) as Promise<void>,
    close: async () => {
      const key = await current.catch(() => null);
      if (key) await host.send({ op: 'close', key }, CLOSE_DEADLINE_MS).catch(() => undefined);
    },
  };
}
