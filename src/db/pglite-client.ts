import { PGlite, type Transaction } from '@electric-sql/pglite';
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

/** PGlite in a data directory (or in memory when `dataDir` is undefined). */
export async function openPglite(dataDir: string | undefined): Promise<SqlClient> {
  const db = await PGlite.create(dataDir);
  const base = executor(db);
  return {
    kind: 'pglite',
    ...base,
    transaction: (fn) => db.transaction((tx) => fn(executor(tx))),
    async listen(channel, onNotify) {
      const unlisten = await db.listen(channel, () => onNotify());
      return unlisten;
    },
    close: () => db.close(),
  };
}
