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
  const detachers = new Map<pg.PoolClient, () => void>();
  const detach = (client: pg.PoolClient) => {
    detachers.get(client)?.();
    detachers.delete(client);
  };
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
      let stopped = false;
      let client: pg.PoolClient | null = null;
      // A lost connection (a restarted server, a terminated backend) must not crash the process: listen
      // again on a new one, then wake the listener, since notices sent meanwhile are lost.
      const reconnect = () => {
        if (!stopped) setTimeout(() => void connect().then(onNotify, reconnect), 1000).unref();
      };
      const connect = async (): Promise<void> => {
        const next = await pool.connect();
        const onNotification = (msg: pg.Notification) => {
          if (msg.channel === channel) onNotify();
        };
        let lost = false;
        const onError = () => {
          if (lost) return;
          lost = true;
          detach(next);
          next.release(true);
          // Before it listens, the failed `listen` below reports the loss instead.
          if (!listeners.includes(next)) return;
          listeners.splice(listeners.indexOf(next), 1);
          if (client === next) client = null;
          reconnect();
        };
        next.on('notification', onNotification);
        next.on('error', onError);
        // Once released, the connection is the pool's: an error on it later is not this listener's to handle
        // (releasing it a second time would throw).
        detachers.set(next, () => {
          next.off('notification', onNotification);
          next.off('error', onError);
        });
        try {
          await next.query(`listen ${pg.escapeIdentifier(channel)}`);
        } catch (error) {
          if (!lost) {
            detach(next);
            next.release(true);
          }
          lost = true;
          throw error;
        }
        listeners.push(next);
        client = next;
      };
      await connect();
      return async () => {
        stopped = true;
        const current = client;
        if (!current) return;
        await current.query(`unlisten ${pg.escapeIdentifier(channel)}`).catch(() => undefined);
        listeners.splice(listeners.indexOf(current), 1);
        detach(current);
        current.release();
      };
    },
    async close() {
      for (const client of listeners.splice(0)) {
        detach(client);
        client.release();
      }
      await pool.end();
    },
  };
}
