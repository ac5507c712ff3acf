import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PgliteThread, sibling } from './pglite-thread-handle.js';
import { SleepingThread } from './pglite-sleep.js';
import type { QueryResult, SqlClient, SqlExecutor, SqlValue } from './sql-client.js';

export { PGLITE_CONFIG } from './pglite-config.js';

/** Creates a new data directory in a short-lived child process, so the server never holds initdb's memory. */
async function initialise(dataDir: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = fork(sibling('pglite-init'), [dataDir], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`initialising ${dataDir} failed (exit ${code})`))));
  });
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
