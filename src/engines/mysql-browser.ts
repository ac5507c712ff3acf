import mysql from 'mysql2/promise';
import mysqlCore, { type Connection as CoreConnection } from 'mysql2';
import type { FieldPacket, Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import {
  BrowserError,
  parseTableId,
  type ColumnInfo,
  type DatabaseBrowser,
  type EngineEndpoint,
  type QueryResult,
  type TableEntry,
} from './browser.js';
import { EXACT_COUNT_LIMIT } from './postgres-browser.js';

const quote = (name: string) => `\`${name.replace(/`/g, '``')}\``;

// The protocol's type names as SQL spells them.
const SQL_NAMES: Record<string, string> = {
  TINY: 'TINYINT', SHORT: 'SMALLINT', LONG: 'INT', LONGLONG: 'BIGINT', INT24: 'MEDIUMINT', NEWDECIMAL: 'DECIMAL',
  VAR_STRING: 'VARCHAR', STRING: 'CHAR', NEWDATE: 'DATE', TINY_BLOB: 'TINYBLOB', MEDIUM_BLOB: 'MEDIUMBLOB', LONG_BLOB: 'LONGBLOB',
};
const TYPE_NAMES = new Map(Object.entries(mysqlCore.Types as unknown as Record<string, number>).map(([name, id]) => [id, SQL_NAMES[name] ?? name]));

/** Binary values as `\x…` hex (as Postgres prints bytea): JSON cannot carry raw bytes. */
function plain(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = Buffer.isBuffer(v) ? `\\x${v.toString('hex')}` : v;
  return out;
}

/** JSON objects and arrays are bound as their JSON text; everything else as it is. */
function bindable(value: unknown): string | number | boolean | Buffer | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || Buffer.isBuffer(value)) return value;
  return JSON.stringify(value);
}

// Interrupted by KILL QUERY, or by the server's own statement time limits (MariaDB, MySQL).
const INTERRUPTED = new Set([1317, 1969, 3024]);
/**
 * How long a browsing statement may wait for an answer. A server gone without closing the connection (a container
 * removed behind a port mapping) would otherwise leave the request waiting for ever.
 */
const BROWSE_DEADLINE_MS = 30_000;
/** How long past its limit a console statement whose KILL QUERY found no server may wait before its connection is cut. */
const KILL_GRACE_MS = 10_000;

/** Cuts the connection's socket after `ms`: the statement on it fails as a lost connection, and the pool drops it. */
function cutAfter(conn: PoolConnection, ms: number): NodeJS.Timeout {
  const stream = (conn.connection as unknown as { stream: { destroy(error: Error): void } }).stream;
  return setTimeout(() => stream.destroy(Object.assign(new Error(`the database did not answer within ${ms / 1000} s`), { code: 'ETIMEDOUT' })), ms);
}

function toBrowserError(error: unknown, timeoutMs?: number): BrowserError {
  if (error instanceof BrowserError) return error;
  const e = error as { errno?: number; code?: string; sqlState?: string; message?: string };
  const message = e.message ?? String(error);
  if (timeoutMs !== undefined && e.errno !== undefined && INTERRUPTED.has(e.errno)) {
    return new BrowserError('timeout', `the statement ran longer than ${timeoutMs / 1000} s and was cancelled`);
  }
  // Access denied (1045) means Slipway's own credentials no longer work: the database cannot be used.
  if (e.errno === 1045 || e.errno === 1040 || !e.sqlState || e.code?.startsWith('PROTOCOL_')) {
    return new BrowserError('unavailable', `the database cannot be reached: ${message}`);
  }
  return new BrowserError('engine', message);
}

interface TableMeta {
  schema: string;
  name: string;
  estimate: number;
  columns: ColumnInfo[];
  key: string[];
}

/** MySQL and MariaDB through mysql2; the schema of a table is its database. */
export function createMysqlBrowser(endpoint: EngineEndpoint): DatabaseBrowser {
  const pool: Pool = mysql.createPool({
    host: endpoint.host,
    port: endpoint.port,
    user: endpoint.user ?? 'root',
    password: endpoint.password ?? undefined,
    database: endpoint.database ?? undefined,
    connectionLimit: 3,
    maxIdle: 0,
    idleTimeout: 30_000,
    connectTimeout: 5_000,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    // For the SQL console only; row edits always bind their values.
    multipleStatements: true,
  });

  // Values travel as prepared-statement parameters, never spliced into the text: the client-side escaping of
  // `query` assumes backslash escapes, which a server in NO_BACKSLASH_ESCAPES mode does not honour.
  const run = async <R extends RowDataPacket[] | ResultSetHeader>(sql: string, params: unknown[] = []): Promise<R> => {
    let conn: PoolConnection;
    try {
      conn = await pool.getConnection();
    } catch (error) {
      throw toBrowserError(error);
    }
    const cut = cutAfter(conn, BROWSE_DEADLINE_MS);
    try {
      const [result] = await conn.execute<R>(sql, params.map(bindable));
      return result;
    } catch (error) {
      throw toBrowserError(error);
    } finally {
      clearTimeout(cut);
      conn.release();
    }
  };

  async function meta(tableId: string): Promise<TableMeta> {
    const { schema, name } = parseTableId(tableId);
    // The catalogue compares names without regard to case; a table is found only under its exact name.
    const tables = (
      await run<RowDataPacket[]>('select table_schema as `schema`, table_name as name, table_rows from information_schema.tables where table_schema = ? and table_name = ?', [schema, name])
    ).filter((t) => t.schema === schema && t.name === name);
    if (tables.length === 0) throw new BrowserError('not_found', `table ${tableId} not found`);
    const columns = (
      await run<RowDataPacket[]>(
        `select c.table_schema as \`schema\`, c.table_name as tableName, c.column_name as name, c.column_type as type,
                k.ordinal_position as key_position
           from information_schema.columns c
           left join information_schema.key_column_usage k
             on k.table_schema = c.table_schema and k.table_name = c.table_name and k.column_name = c.column_name and k.constraint_name = 'PRIMARY'
          where c.table_schema = ? and c.table_name = ? order by c.ordinal_position`,
        [schema, name],
      )
    ).filter((c) => c.schema === schema && c.tableName === name);
    return {
      schema,
      name,
      estimate: Number(tables[0]!.table_rows ?? 0),
      columns: columns.map((c) => ({ name: String(c.name), type: String(c.type), primary: c.key_position !== null })),
      key: columns
        .filter((c) => c.key_position !== null)
        .sort((a, b) => Number(a.key_position) - Number(b.key_position))
        .map((c) => String(c.name)),
    };
  }

  const target = (t: { schema: string; name: string }) => `${quote(t.schema)}.${quote(t.name)}`;

  async function total(t: { schema: string; name: string; estimate: number }) {
    if (t.estimate >= EXACT_COUNT_LIMIT) return t.estimate;
    return Number((await run<RowDataPacket[]>(`select count(*) as n from ${target(t)}`))[0]!.n);
  }

  function checkColumns(t: TableMeta, names: string[]) {
    for (const n of names) {
      if (!t.columns.some((c) => c.name === n)) throw new BrowserError('invalid', `table ${t.schema}.${t.name} has no column ${JSON.stringify(n)}`);
    }
  }

  function keyCondition(t: TableMeta, primaryKey: Record<string, unknown>) {
    if (t.key.length === 0) throw new BrowserError('invalid', `table ${t.schema}.${t.name} has no primary key: its rows cannot be addressed`);
    if (Object.keys(primaryKey).sort().join('\u0000') !== [...t.key].sort().join('\u0000')) {
      throw new BrowserError('invalid', `primaryKey must name exactly the primary key of ${t.schema}.${t.name}: ${t.key.join(', ')}`);
    }
    return { sql: t.key.map((k) => `${quote(k)} = ?`).join(' and '), params: t.key.map((k) => primaryKey[k]) };
  }

  /** Stops a statement of another connection; the statement then fails as interrupted. */
  const kill = (threadId: number) => pool.query(`KILL QUERY ${Number(threadId)}`).catch(() => undefined);

  return {
    engine: 'mysql',

    async ping() {
      await run('select 1');
    },

    async tables(): Promise<TableEntry[]> {
      const rows = await run<RowDataPacket[]>(
        `select table_schema as \`schema\`, table_name as name, table_rows as estimate from information_schema.tables
          where table_type = 'BASE TABLE' and table_schema = coalesce(database(), table_schema)
            and table_schema not in ('mysql', 'information_schema', 'performance_schema', 'sys')
          order by table_schema, table_name`,
      );
      const out: TableEntry[] = [];
      for (const r of rows) {
        const t = { schema: String(r.schema), name: String(r.name), estimate: Number(r.estimate ?? 0) };
        out.push({ id: `${t.schema}.${t.name}`, schema: t.schema, name: t.name, rowCount: await total(t) });
      }
      return out;
    },

    async rows(tableId, { limit, offset }) {
      const t = await meta(tableId);
      // Without a key, all columns order the rows, so that pages neither repeat nor skip a row.
      const order = ` order by ${(t.key.length > 0 ? t.key : t.columns.map((c) => c.name)).map(quote).join(', ')}`;
      // Integers checked at the edge; MySQL's prepared statements refuse numbers bound to LIMIT.
      const rows = await run<RowDataPacket[]>(`select * from ${target(t)}${order} limit ${Math.trunc(limit)} offset ${Math.trunc(offset)}`);
      return { columns: t.columns, rows: rows.map((r) => plain(r)), total: await total(t) };
    },

    async query(text, { timeoutMs, maxRows }): Promise<QueryResult> {
      let conn: PoolConnection;
      try {
        conn = await pool.getConnection();
      } catch (error) {
        throw toBrowserError(error);
      }
      const threadId = conn.threadId;
      let capped = false;
      const timer = setTimeout(() => void kill(threadId), timeoutMs);
      const cut = cutAfter(conn, timeoutMs + KILL_GRACE_MS);
      try {
        // Read as a stream: once the cap is passed the statement is stopped, so a huge result is never held.
        const outcome = await new Promise<{ rows: Record<string, unknown>[]; fields: FieldPacket[]; affected: number }>((resolve, reject) => {
          let rows: Record<string, unknown>[] = [];
          let fields: FieldPacket[] = [];
          let affected = 0;
          // The callback connection underneath the promise one: its query is an event emitter.
          const core = conn.connection as unknown as CoreConnection;
          const q = core.query(text);
          // A query without a callback hears nothing of a lost connection: the connection itself reports it.
          const lost = (error: Error) => reject(error);
          core.once('error', lost);
          const settled = () => core.off('error', lost);
          q.on('end', settled);
          q.on('error', settled);
          // Each statement's result set starts with its fields (undefined for a statement without rows).
          q.on('fields', (f: FieldPacket[] | undefined) => {
            fields = f ?? [];
            rows = [];
          });
          q.on('result', (r: RowDataPacket | ResultSetHeader) => {
            if ('affectedRows' in r && !Array.isArray(r) && fields.length === 0) {
              affected = (r as ResultSetHeader).affectedRows;
              return;
            }
            if (rows.length <= maxRows) rows.push(plain(r as Record<string, unknown>));
            if (rows.length > maxRows && !capped) {
              capped = true;
              void kill(threadId);
            }
          });
          q.on('error', (error: Error) => (capped && INTERRUPTED.has((error as { errno?: number }).errno ?? 0) ? resolve({ rows, fields, affected }) : reject(error)));
          q.on('end', () => resolve({ rows, fields, affected }));
        });
        const truncated = outcome.rows.length > maxRows;
        const rows = truncated ? outcome.rows.slice(0, maxRows) : outcome.rows;
        const columns = outcome.fields.map((f) => ({ name: f.name, type: TYPE_NAMES.get(f.columnType ?? -1) ?? String(f.columnType) }));
        return { columns, rows, rowCount: columns.length > 0 ? rows.length : outcome.affected, truncated };
      } catch (error) {
        throw toBrowserError(error, timeoutMs);
      } finally {
        clearTimeout(timer);
        clearTimeout(cut);
        // A session the console changed (an open transaction, variables) is not handed to the next request.
        conn.destroy();
      }
    },

    async insertRow(tableId, values) {
      const t = await meta(tableId);
      const names = Object.keys(values);
      checkColumns(t, names);
      const sql =
        names.length === 0
          ? `insert into ${target(t)} () values ()`
          : `insert into ${target(t)} (${names.map(quote).join(', ')}) values (${names.map(() => '?').join(', ')})`;
      const result = await run<ResultSetHeader>(sql, names.map((n) => values[n]));
      if (result.insertId) return { id: result.insertId };
      if (t.key.length === 0) return { id: null };
      return { id: t.key.length === 1 ? (values[t.key[0]!] ?? null) : Object.fromEntries(t.key.map((k) => [k, values[k] ?? null])) };
    },

    async updateRow(tableId, primaryKey, values) {
      const t = await meta(tableId);
      const names = Object.keys(values);
      if (names.length === 0) throw new BrowserError('invalid', 'values must set at least one column');
      checkColumns(t, names);
      const where = keyCondition(t, primaryKey);
      const result = await run<ResultSetHeader>(`update ${target(t)} set ${names.map((n) => `${quote(n)} = ?`).join(', ')} where ${where.sql}`, [
        ...names.map((n) => values[n]),
        ...where.params,
      ]);
      if (result.affectedRows === 0) throw new BrowserError('not_found', `no row of ${tableId} has that primary key`);
    },

    async deleteRow(tableId, primaryKey) {
      const t = await meta(tableId);
      const where = keyCondition(t, primaryKey);
      const result = await run<ResultSetHeader>(`delete from ${target(t)} where ${where.sql}`, where.params);
      if (result.affectedRows === 0) throw new BrowserError('not_found', `no row of ${tableId} has that primary key`);
    },

    async close() {
      await pool.end();
    },
  };
}
