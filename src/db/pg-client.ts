import pg from 'pg';
import type { QueryResult, SqlClient, SqlExecutor, SqlValue } from './sql-client.js';

// BIGINT and NUMERIC stay strings unless a query casts them; counts are cast to int in SQL.
function executor(target: pg.Pool | pg.PoolClient): SqlExecutor {
  return {
    async query<R>(text: string, params: readonly SqlValue[] = []): Promise<QueryResult<R>> {
      const result = await target.query(text, params as unknown[]);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
    },
    async exec(text: string): Promise<void> {
      await target.query(text);
    },
  };
}

export async function openPostgres(url: string, poolSize = 10): Promise<SqlClient> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  await pool.query('select 1');
  const listeners: pg.PoolClient[] = [];
  return {
    kind: 'postgres',
    ...executor(pool),
    asleep: () => false,
    touch: () => undefined,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await fn(executor(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async listen(channel, onNotify) {
      const client = await pool.connect();
      listeners.push(client);
      client.on('notification', (msg) => {
        if (msg.channel === channel) onNotify();
      });
      await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      return async () => {
        await client.query(`unlisten ${pg.escapeIdentifier(channel)}`).catch(() => undefined);
        listeners.splice(listeners.indexOf(client), 1);
        client.release();
      };
    },
    async close() {
      for (const client of listeners.splice(0)) client.release();
      await pool.end();
    },
  };
}
