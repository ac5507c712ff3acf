import pg from 'pg';
import {
  BrowserError,
  parseTableId,
  type ColumnInfo,
  type DatabaseBrowser,
  type EngineEndpoint,
  type QueryResult,
  type TableEntry,
} from './browser.js';
import { bounded, readCursor, type ConsoleClient } from './postgres-reads.js';

/** Above this many rows (by the catalogue's estimate) a table's count is the estimate: counting would scan it. */
export const EXACT_COUNT_LIMIT = 100_000;
const META_TTL_MS = 2_000;
/** How long past its limit a statement that lifted its own timeout may run before it is cancelled. */
const BACKSTOP_GRACE_MS = 1_000;

// Dates, times and bytea reach the client as Postgres prints them (ISO text, `\x…` hex): no time-zone shifts,
// nothing JSON cannot carry. int8 and numeric stay text (they do not fit a JavaScript number).
const RAW_TEXT_TYPES = [17, 1082, 1083, 1114, 1184, 1266];
const rawText = (value: string) => value;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    RAW_TEXT_TYPES.includes(oid) ? rawText : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};


const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Connection failures and a server still starting are `unavailable`; anything else the engine says is `engine`. */
function toBrowserError(error: unknown, timeoutMs?: number): BrowserError {
  if (error instanceof BrowserError) return error;
  const e = error as { code?: string; message?: string };
  const message = e.message ?? String(error);
  // 57014 is also a failed COPY FROM STDIN: only the timeout's own cancellations are timeouts.
  if (e.code === '57014' && timeoutMs !== undefined && /statement timeout|user request/.test(message)) return new BrowserError('timeout', `the statement ran longer than ${timeoutMs / 1000} s and was cancelled`);
  if (e.code && /^(08|28|57P0|53)/.test(e.code)) return new BrowserError('unavailable', `the database cannot be reached: ${message}`);
  if (e.code && /^[0-9A-Z]{5}$/.test(e.code)) return new BrowserError('engine', message);
  return new BrowserError('unavailable', `the database cannot be reached: ${message}`);
}

interface TableMeta {
  schema: string;
  name: string;
  kind: string;
  estimate: number;
  columns: ColumnInfo[];
  /** Primary key columns in key order. */
  key: string[];
}

export function createPostgresBrowser(endpoint: EngineEndpoint, engine: 'postgres' | 'timeseries'): DatabaseBrowser {
  const connection: pg.ClientConfig = {
    host: endpoint.host,
    port: endpoint.port,
    user: endpoint.user ?? 'postgres',
    password: endpoint.password ?? undefined,
    database: endpoint.database ?? undefined,
    ssl: endpoint.tls ? { ca: endpoint.tls.ca, servername: endpoint.tls.servername, rejectUnauthorized: true } : false,
    connectionTimeoutMillis: 5_000,
    types,
  };
  const pool = new pg.Pool({
    ...connection,
    max: 3,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
  });
  // An idle connection the server closed (a restart) is dropped by the pool; nothing to report.
  pool.on('error', () => undefined);
  let typeNames: Map<number, string> | null = null;
  // Paging through a table asks for its columns at every page: they are kept briefly, and forgotten
  // whenever SQL runs (it may have changed them).
  const described = new Map<string, { at: number; meta: Promise<TableMeta> }>();

  const run = async <R extends pg.QueryResultRow>(text: string, params: unknown[] = []) => {
    try {
      return await pool.query<R>(bounded(text, params));
    } catch (error) {
      throw toBrowserError(error);
    }
  };

  function meta(tableId: string): Promise<TableMeta> {
    const known = described.get(tableId);
    if (known && Date.now() - known.at < META_TTL_MS) return known.meta;
    const fresh = describe(tableId);
    described.set(tableId, { at: Date.now(), meta: fresh });
    fresh.catch(() => described.get(tableId)?.meta === fresh && described.delete(tableId));
    return fresh;
  }

  async function describe(tableId: string): Promise<TableMeta> {
    const { schema, name } = parseTableId(tableId);
    const { rows } = await run<{ kind: string; estimate: number; column: string | null; type: string | null; key_position: number | null }>(
      `select c.relkind as kind, c.reltuples::float8 as estimate, a.attname as column, format_type(a.atttypid, a.atttypmod) as type,
              array_position(i.indkey::int2[], a.attnum) as key_position
         from pg_class c
         join pg_namespace n on n.oid = c.relnamespace
         left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
         left join pg_index i on i.indrelid = c.oid and i.indisprimary
        where n.nspname = $1 and c.relname = $2 and c.relkind in ('r', 'p', 'v', 'm', 'f')
        order by a.attnum`,
      [schema, name],
    );
    if (rows.length === 0) throw new BrowserError('not_found', `table ${tableId} not found`);
    const columns = rows.filter((r) => r.column !== null).map((r) => ({ name: r.column!, type: r.type!, primary: r.key_position !== null }));
    const key = rows
      .filter((r) => r.key_position !== null)
      .sort((a, b) => a.key_position! - b.key_position!)
      .map((r) => r.column!);
    return { schema, name, kind: rows[0]!.kind, estimate: rows[0]!.estimate, columns, key };
  }

  const target = (t: TableMeta) => `${quote(t.schema)}.${quote(t.name)}`;

  async function total(t: TableMeta): Promise<number> {
    if (t.estimate >= EXACT_COUNT_LIMIT) return Math.round(t.estimate);
    const { rows } = await run<{ n: string }>(`select count(*) as n from ${target(t)}`);
    return Number(rows[0]!.n);
  }

  function checkColumns(t: TableMeta, names: string[]) {
    for (const n of names) {
      if (!t.columns.some((c) => c.name === n)) throw new BrowserError('invalid', `table ${t.schema}.${t.name} has no column ${JSON.stringify(n)}`);
    }
  }

  /** `where` for exactly the table's primary key, with parameters from `$from` on. */
  function keyCondition(t: TableMeta, primaryKey: Record<string, unknown>, from: number) {
    if (t.key.length === 0) throw new BrowserError('invalid', `table ${t.schema}.${t.name} has no primary key: its rows cannot be addressed`);
    const given = Object.keys(primaryKey).sort();
    if (given.join('\u0000') !== [...t.key].sort().join('\u0000')) {
      throw new BrowserError('invalid', `primaryKey must name exactly the primary key of ${t.schema}.${t.name}: ${t.key.join(', ')}`);
    }
    return { sql: t.key.map((k, i) => `${quote(k)} = $${from + i}`).join(' and '), params: t.key.map((k) => primaryKey[k]) };
  }

  /**
   * The statement's own text can lift `statement_timeout` (`set statement_timeout = 0; …`): a second connection
   * cancels it a moment after the limit, and ends its session if even that does not stop it.
   */
  function backstop(client: ConsoleClient, timeoutMs: number) {
    const pid = client.processID;
    const signal = async (fn: 'pg_cancel_backend' | 'pg_terminate_backend') => {
      const killer = new pg.Client(connection);
      killer.on('error', () => undefined);
      try {
        await killer.connect();
        await killer.query(`select ${fn}($1)`, [pid]);
      } catch {
        // The statement may have ended meanwhile; nothing to stop.
      } finally {
        await killer.end().catch(() => undefined);
      }
    };
    const cancel = setTimeout(() => void signal('pg_cancel_backend'), timeoutMs + BACKSTOP_GRACE_MS);
    const terminate = setTimeout(() => void signal('pg_terminate_backend'), timeoutMs + 5 * BACKSTOP_GRACE_MS);
    // A server that no longer answers at all (gone without closing the connection) cannot be signalled:
    // the connection itself is cut, which fails the statement and every query after it on this client.
    const cut = setTimeout(() => client.connection.stream.destroy(), timeoutMs + 10 * BACKSTOP_GRACE_MS);
    return () => {
      clearTimeout(cancel);
      clearTimeout(terminate);
      clearTimeout(cut);
    };
  }

  async function typeName(oid: number): Promise<string> {
    if (!typeNames?.has(oid)) {
      const { rows } = await run<{ oid: number; typname: string }>('select oid::int as oid, typname from pg_type');
      typeNames = new Map(rows.map((r) => [r.oid, r.typname]));
    }
    return typeNames.get(oid) ?? String(oid);
  }

  return {
    engine,

    async ping() {
      await run('select 1');
    },

    async tables(): Promise<TableEntry[]> {
      const { rows } = await run<{ schema: string; name: string; estimate: number }>(
        `select n.nspname as schema, c.relname as name, c.reltuples::float8 as estimate
           from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where c.relkind in ('r', 'p') and not c.relispartition
            and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'
            and n.nspname not like '\\_timescaledb%' and n.nspname not like 'timescaledb\\_%'
          order by 1, 2`,
      );
      const out: TableEntry[] = [];
      for (const r of rows) {
        const rowCount = await total({ schema: r.schema, name: r.name, kind: 'r', estimate: r.estimate, columns: [], key: [] });
        out.push({ id: `${r.schema}.${r.name}`, schema: r.schema, name: r.name, rowCount });
      }
      return out;
    },

    async rows(tableId, { limit, offset }) {
      const t = await meta(tableId);
      const order = t.key.length > 0 ? ` order by ${t.key.map(quote).join(', ')}` : t.kind === 'r' ? ' order by ctid' : '';
      const { rows } = await run(`select * from ${target(t)}${order} limit $1 offset $2`, [limit, offset]);
      return { columns: t.columns, rows, total: await total(t) };
    },

    async query(text, { timeoutMs, maxRows }): Promise<QueryResult> {
      described.clear();
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw toBrowserError(error);
      }
      // The pool listens to idle clients only: a server ending this one between its queries (a stopped container,
      // a terminated backend) would otherwise be an unhandled 'error' event. Its queries fail with the cause.
      const ignore = () => undefined;
      client.on('error', ignore);
      let stopBackstop = () => {};
      try {
        await client.query(`set statement_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
        stopBackstop = backstop(client as ConsoleClient, timeoutMs);
        let result: { rows: Record<string, unknown>[]; fields: pg.FieldDef[]; rowCount: number | null; command: string };
        try {
          result = await readCursor(client as ConsoleClient, text, maxRows + 1);
        } catch (error) {
          // Several statements in one text cannot be a cursor: they run as one simple query, all rows kept.
          if ((error as { code?: string }).code !== '42601' || !/multiple commands/.test(String((error as Error).message))) throw error;
          const all = (await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[];
          const last = Array.isArray(all) ? all[all.length - 1]! : all;
          result = { rows: last.rows, fields: last.fields ?? [], rowCount: last.rowCount, command: last.command };
        }
        const returnsRows = result.fields.length > 0;
        const truncated = returnsRows && result.rows.length > maxRows;
        const rows = truncated ? result.rows.slice(0, maxRows) : result.rows;
        const columns = [];
        for (const f of result.fields) columns.push({ name: f.name, type: await typeName(f.dataTypeID) });
        return { columns, rows, rowCount: returnsRows ? rows.length : (result.rowCount ?? 0), truncated };
      } catch (error) {
        throw toBrowserError(error, timeoutMs);
      } finally {
        stopBackstop();
        // Each request starts from a clean session: an open transaction is rolled back, settings reset.
        await client
          .query(bounded('rollback'))
          .then(() => client.query(bounded('discard all')))
          .then(
            () => client.release(),
            (error: Error) => client.release(error),
          )
          .finally(() => client.off('error', ignore));
      }
    },

    async insertRow(tableId, values) {
      const t = await meta(tableId);
      const names = Object.keys(values);
      checkColumns(t, names);
      const returning = t.key.length > 0 ? ` returning ${t.key.map(quote).join(', ')}` : '';
      const sql =
        names.length === 0
          ? `insert into ${target(t)} default values${returning}`
          : `insert into ${target(t)} (${names.map(quote).join(', ')}) values (${names.map((_, i) => `$${i + 1}`).join(', ')})${returning}`;
      const { rows } = await run<Record<string, unknown>>(sql, names.map((n) => values[n]));
      const key = rows[0];
      if (!key || t.key.length === 0) return { id: null };
      return { id: t.key.length === 1 ? key[t.key[0]!] : key };
    },

    async updateRow(tableId, primaryKey, values) {
      const t = await meta(tableId);
      const names = Object.keys(values);
      if (names.length === 0) throw new BrowserError('invalid', 'values must set at least one column');
      checkColumns(t, names);
      const where = keyCondition(t, primaryKey, names.length + 1);
      const { rowCount } = await run(
        `update ${target(t)} set ${names.map((n, i) => `${quote(n)} = $${i + 1}`).join(', ')} where ${where.sql}`,
        [...names.map((n) => values[n]), ...where.params],
      );
      if (!rowCount) throw new BrowserError('not_found', `no row of ${tableId} has that primary key`);
    },

    async deleteRow(tableId, primaryKey) {
      const t = await meta(tableId);
      const where = keyCondition(t, primaryKey, 1);
      const { rowCount } = await run(`delete from ${target(t)} where ${where.sql}`, where.params);
      if (!rowCount) throw new BrowserError('not_found', `no row of ${tableId} has that primary key`);
    },

    async close() {
      await pool.end();
    },
  };
}
