import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserializeError, type ThreadReply, type ThreadRequest } from './pglite-messages.js';

const CLOSE_TIMEOUT_MS = 10_000;

const extension = extname(fileURLToPath(import.meta.url));
/** A module beside this one, in the form this process runs (.js built, .ts from the sources). */
export const sibling = (name: string) => fileURLToPath(new URL(`./${name}${extension}`, import.meta.url));

function threadWorker(dataDir: string | undefined): Worker {
  const workerData = { dataDir };
  if (extension === '.js') return new Worker(sibling('pglite-thread'), { workerData });
  // Run from the TypeScript sources (tests, benchmarks through tsx): Node 20 applies no loader of the
  // parent's to a worker, so the worker registers tsx itself before it loads the thread's module.
  const url = new URL(`./pglite-thread${extension}`, import.meta.url).href;
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url)}); })`, { eval: true, workerData });
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
