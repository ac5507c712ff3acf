import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { deserializeError, type ThreadReply, type ThreadRequest } from './pglite-messages.js';
import { SleepingThread } from './pglite-sleep.js';
import type { QueryResult, SqlClient, SqlExecutor, SqlValue } from './sql-client.js';

export { PGLITE_CONFIG } from './pglite-config.js';

const CLOSE_TIMEOUT_MS = 10_000;

const extension = extname(fileURLToPath(import.meta.url));
const sibling = (name: string) => fileURLToPath(new URL(`./${name}${extension}`, import.meta.url));

function threadWorker(dataDir: string | undefined): Worker {
  const workerData = { dataDir };
  if (extension === '.js') return new Worker(sibling('pglite-thread'), { workerData });
  // Run from the TypeScript sources (tests, benchmarks through tsx): Node 20 applies no loader of the
  // parent's to a worker, so the worker registers tsx itself before it loads the thread's module.
  const url = new URL(`./pglite-thread${extension}`, import.meta.url).href;
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url)}); })`, { eval: true, workerData });
}

/** Creates a new data directory in a short-lived child process, so the server never holds initdb's memory. */
async function initialise(dataDir: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = fork(sibling('pglite-init'), [dataDir], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`initialising ${dataDir} failed (exit ${code})`))));
  });
}

export type Request = ThreadRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** The server's side of one PGlite thread (pglite-thread.ts): requests by id, answers as promises. */
export class PgliteThread {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private stopped: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    onNotify: (channel: string) => void,
  ) {
    worker.on('message', (reply: ThreadReply) => ('notify' in reply ? onNotify(reply.notify) : this.receive(reply)));
    worker.on('error', (error) => this.stop(new Error(`the PGlite thread failed: ${error.message}`)));
    worker.on('exit', (code) => this.stop(new Error(`the PGlite thread stopped (exit ${code})`)));
    // An idle client must not keep the process alive; one with a request in flight must.
    worker.unref();
  }

  static start(dataDir: string | undefined, onNotify: (channel: string) => void): Promise<PgliteThread> {
    const worker = threadWorker(dataDir);
    return new Promise((resolve, reject) => {
      const ready = (reply: ThreadReply) => {
        if ('ready' in reply) resolve(new PgliteThread(worker, onNotify));
        else if ('failed' in reply) reject(deserializeError(reply.failed));
        else return;
        worker.off('message', ready);
      };
      worker.on('message', ready);
      worker.once('error', reject);
    });
  }

  call<T>(request: Request): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.next++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...request, id });
    });
  }

  /** Whether a request is waiting for its answer. */
  busy(): boolean {
    return this.pending.size > 0;
  }

  /**
   * Shuts Postgres down cleanly, then ends the thread. One that has not closed within 10 s is ended anyway, so
   * that nothing waits on it for ever: the next start recovers from the WAL, as after a crash.
   */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)));
    try {
      await Promise.race([this.call({ op: 'close' }), late]);
    } finally {
      clearTimeout(timer);
      await this.worker.terminate();
    }
  }

  private receive(reply: ThreadReply) {
    if (!('id' in reply)) return;
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if ('error' in reply) waiting.reject(deserializeError(reply.error));
    else waiting.resolve(reply.result);
  }

  private stop(error: Error) {
    this.stopped ??= error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

/** bytea arrives as a Uint8Array from the thread; the rest of Slipway reads Buffers, as pg gives them. */
function withBuffers<R>(result: QueryResult<R>): QueryResult<R> {
  for (const row of result.rows as Record<string, unknown>[]) {
    for (const [column, value] of Object.entries(row)) {
      if (value instanceof Uint8Array && !Buffer.isBuffer(value)) row[column] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
  }
  return result;
}

/**
 * PGlite in a data directory (or in memory when `dataDir` is undefined), running on a thread of its own. With
 * `sleepAfterMs` and a data directory, the thread is closed after that long without requests or appends and
 * opened again at the next statement (pglite-sleep.ts).
 */
export async function openPglite(dataDir: string | undefined, sleepAfterMs = 0): Promise<SqlClient> {
  if (dataDir && !existsSync(join(dataDir, 'PG_VERSION'))) await initialise(dataDir);
  const thread = new SleepingThread((onNotify) => PgliteThread.start(dataDir, onNotify), dataDir ? sleepAfterMs : 0);
  await thread.wake();
  let transactions = 0;
  const executor = (tx: number | null): SqlExecutor => ({
    query: async <R>(text: string, params: readonly SqlValue[] = []) => withBuffers(await thread.call<QueryResult<R>>({ op: 'query', text, params, tx })),
    exec: (text: string) => thread.call<void>({ op: 'exec', text, tx }),
  });
  const inTransaction = async <T>(tx: number, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    await thread.call({ op: 'begin', tx });
    let result: T;
    try {
      result = await fn(executor(tx));
    } catch (error) {
      await thread.call({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw error;
    }
    await thread.call({ op: 'end', tx, commit: true });
    return result;
  };
  return {
    kind: 'pglite',
    ...executor(null),
    bound: (statements) => thread.call<(string | null)[]>({ op: 'bound', statements }),
    async transaction(fn) {
      // An open transaction lives in the thread: it must not sleep between the statements.
      thread.hold();
      try {
        return await inTransaction(++transactions, fn);
      } finally {
        thread.release();
      }
    },
    listen: (channel, onNotify) => thread.listen(channel, onNotify),
    asleep: () => thread.asleep(),
    touch: () => thread.touch(),
    close: () => thread.close(),
  };
}
