import { PGlite, type Transaction } from '@electric-sql/pglite';
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PreparedStatements } from './pglite-statements.js';
import type { QueryResult, SqlClient, SqlExecutor, SqlValue } from './sql-client.js';

function executor(target: PGlite | Transaction): SqlExecutor {
  return {
    async query<R>(text: string, params: readonly SqlValue[] = []): Promise<QueryResult<R>> {
      const result = await target.query<R>(text, params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    async exec(text: string): Promise<void> {
      await target.exec(text);
    },
  };
}

/** Small buffers suit a control plane on a 1 GB machine; the OS page cache does the rest. */
export const PGLITE_CONFIG = [
  'shared_buffers = 8MB',
  'wal_buffers = 1MB',
  'maintenance_work_mem = 16MB',
  // One connection in PGlite: a small lock table and few backends' shared memory.
  'max_connections = 5',
  'max_locks_per_transaction = 64',
];

/** Creates a new data directory in a short-lived child process, so the server never holds initdb's memory. */
async function initialise(dataDir: string): Promise<void> {
  const script = fileURLToPath(new URL(`./pglite-init${extname(fileURLToPath(import.meta.url))}`, import.meta.url));
  await new Promise<void>((resolve, reject) => {
    const child = fork(script, [dataDir], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`initialising ${dataDir} failed (exit ${code})`))));
  });
}

/** PGlite in a data directory (or in memory when `dataDir` is undefined). */
export async function openPglite(dataDir: string | undefined): Promise<SqlClient> {
  if (dataDir && !existsSync(join(dataDir, 'PG_VERSION'))) await initialise(dataDir);
  const db = await PGlite.create(dataDir, { postgresqlconf: PGLITE_CONFIG });
  const base = executor(db);
  const statements = new PreparedStatements(db);
  return {
    kind: 'pglite',
    ...base,
    query: (text, params = []) => statements.query(text, params),
    bound: (text, params) => statements.bound(text, params),
    transaction: (fn) => db.transaction((tx) => fn(executor(tx))),
    async listen(channel, onNotify) {
      const unlisten = await db.listen(channel, () => onNotify());
      return unlisten;
    },
    close: () => db.close(),
  };
}
