import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseSettings } from '@clickhouse/client';
import {
  BrowserError,
  parseTableId,
  type ColumnInfo,
  type DatabaseBrowser,
  type EngineEndpoint,
  type QueryResult,
  type RowsPage,
  type TableEntry,
} from './browser.js';
import { answersRows, keyColumns, literalFor, primaryKeyExpression, quoteIdentifier, quoteString } from './clickhouse-literals.js';

/**
 * The database browser for ClickHouse (`columnar`), over the HTTP interface. Written for servers as old as
 * 18.16, which have no server-side query parameters: every value is written into the statement by
 * `literalFor` (clickhouse-literals.ts), typed by the column it goes to, and every table and column name
 * is first looked up in `system.tables` / `system.columns` and then back-quoted.
 *
 * - Tables are those of the endpoint's database; row counts come from the active parts of MergeTree
 *   tables, from count() for the small in-memory and log engines, and are 0 for views and engines whose
 *   rows cannot be counted without side effects (Kafka reads consume messages) or are elsewhere
 *   (Distributed, Merge, MySQL…).
 * - A column is primary when it is a plain column of the table's primary key (PRIMARY KEY, else ORDER BY);
 *   rows are ordered by those columns.
 * - `query` runs statements that answer rows (SELECT, WITH, SHOW, DESCRIBE, EXISTS, EXPLAIN) as queries
 *   in the JSON format, capped by `max_result_rows` with `result_overflow_mode = 'break'` and cut to
 *   maxRows here; every other statement runs as a command. Time is bounded twice: `max_execution_time` on
 *   the server and a client-side deadline that aborts the request and sends KILL QUERY for it.
 * - Updates and deletes are ALTER TABLE … UPDATE/DELETE mutations, which ClickHouse applies in the
 *   background (18.16 has no `mutations_sync`). The browser waits for the mutation it started to be done
 *   (polling system.mutations) for up to MUTATION_WAIT_MS; past that it answers 'timeout' and the
 *   mutation goes on. The primary key given must match exactly one row, checked first ('not_found' for
 *   none, 'invalid' for several: ClickHouse keys are not unique). Key columns cannot be updated ('invalid').
 *   18.16 itself refuses to UPDATE Enum columns ("Illegal columns Const(Int8) and Int8 … of function if"):
 *   that comes back as its 'engine' error.
 */

const BROWSE_TIMEOUT_MS = 30_000;
const MUTATION_WAIT_MS = 30_000;
const COUNTED_ENGINES = new Set(['Memory', 'Log', 'TinyLog', 'StripeLog']);

interface ColumnRow {
  name: string;
  type: string;
  default_kind: string;
}

interface TableMeta {
  name: string;
  engine: string;
  columns: (ColumnInfo & { defaultKind: string })[];
  /** Primary key columns, in key order. */
  key: string[];
}

export function createClickhouseBrowser(endpoint: EngineEndpoint): DatabaseBrowser {
  const database = endpoint.database ?? 'default';
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  const client = createClient({
    url: `${endpoint.tls ? 'https' : 'http'}://${host}:${endpoint.port}`,
    username: endpoint.user ?? 'default',
    password: endpoint.password ?? '',
    database,
    // Every call carries its own deadline (an abort signal); this is only the outer bound.
    request_timeout: 600_000,
    // Every failure reaches the caller as a BrowserError; the client's own logging would repeat each one.
    log: { level: ClickHouseLogLevel.OFF },
    ...(endpoint.tls ? { tls: { ca_cert: Buffer.from(endpoint.tls.ca) } } : {}),
  });

  /** Runs `work` with an abort signal that fires after `timeoutMs`; an abort is a 'timeout'. */
  async function withDeadline<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>, onTimeout?: () => void): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      return await work(controller.signal);
    } catch (error) {
      if (controller.signal.aborted && !(error instanceof BrowserError)) {
        onTimeout?.();
        throw new BrowserError('timeout', `the statement did not finish within ${timeoutMs} ms and was cancelled`);
      }
      throw asBrowserError(error);
    } finally {
      clearTimeout(timer);
    }
  }

  async function select<T>(sql: string, settings: ClickHouseSettings = {}, timeoutMs = BROWSE_TIMEOUT_MS): Promise<T[]> {
    return withDeadline(timeoutMs, async (signal) => {
      const result = await client.query({ query: sql, format: 'JSONEachRow', clickhouse_settings: settings, abort_signal: signal });
      return result.json<T>();
    });
  }

  async function command(sql: string, timeoutMs = BROWSE_TIMEOUT_MS): Promise<void> {
    await withDeadline(timeoutMs, (signal) => client.command({ query: sql, abort_signal: signal }));
  }

  async function tableMeta(table: string): Promise<TableMeta> {
    const { schema, name } = parseTableId(table);
    // Only the service's own database is browsed: the others (system…) are the server's.
    if (schema !== database) throw new BrowserError('not_found', `no table ${JSON.stringify(table)} (tables are in ${database})`);
    // system.tables.primary_key exists from 18.16; before it, the key is read from engine_full.
    const hasPrimaryKey = (await columnsOfSystemTable('tables')).has('primary_key');
    const found = await select<{ name: string; engine: string; engine_full: string; primary_key?: string }>(
      `SELECT name, engine, engine_full${hasPrimaryKey ? ', primary_key' : ''} FROM system.tables ` +
        `WHERE database = ${quoteString(database)} AND name = ${quoteString(name)}`,
    );
    const row = found[0];
    if (!row) throw new BrowserError('not_found', `no table ${JSON.stringify(table)}`);
    const columns = await select<ColumnRow>(
      `SELECT name, type, default_kind FROM system.columns WHERE database = ${quoteString(database)} AND table = ${quoteString(name)}`,
    );
    const expression = !row.engine.endsWith('MergeTree') ? null : row.primary_key !== undefined ? row.primary_key : primaryKeyExpression(row.engine_full);
    const names = new Set(columns.map((c) => c.name));
    const key = expression === null ? [] : keyColumns(expression).filter((c) => names.has(c));
    return {
      name: row.name,
      engine: row.engine,
      key,
      columns: columns.map((c) => ({ name: c.name, type: c.type, primary: key.includes(c.name), defaultKind: c.default_kind })),
    };
  }

  function target(meta: TableMeta): string {
    return `${quoteIdentifier(database)}.${quoteIdentifier(meta.name)}`;
  }

  function columnOf(meta: TableMeta, name: string) {
    const column = meta.columns.find((c) => c.name === name);
    if (!column) throw new BrowserError('not_found', `no column ${JSON.stringify(name)} in ${meta.name}`);
    return column;
  }

  function valuesObject(values: Record<string, unknown>, what: string): [string, unknown][] {
    if (typeof values !== 'object' || values === null || Array.isArray(values)) throw new BrowserError('invalid', `${what} must be an object`);
    const entries = Object.entries(values);
    if (entries.length === 0) throw new BrowserError('invalid', `${what} must name at least one column`);
    return entries;
  }

  /** `WHERE` text for a primary key given as column → value; it must cover the table's key columns. */
  function whereFor(meta: TableMeta, primaryKey: Record<string, unknown>): string {
    const entries = valuesObject(primaryKey, 'primaryKey');
    const given = new Set(entries.map(([c]) => c));
    const missing = meta.key.filter((c) => !given.has(c));
    if (missing.length > 0) throw new BrowserError('invalid', `primaryKey must give every key column; missing: ${missing.join(', ')}`);
    return entries
      .map(([name, value]) => {
        const column = columnOf(meta, name);
        const literal = literalFor(column.type, value);
        return literal === 'NULL' ? `isNull(${quoteIdentifier(name)})` : `${quoteIdentifier(name)} = ${literal}`;
      })
      .join(' AND ');
  }

  /** count() of a table, optionally filtered. No alias: a column of the same name would be shadowed in WHERE. */
  async function count(from: string, where?: string, settings: ClickHouseSettings = {}, timeoutMs = BROWSE_TIMEOUT_MS): Promise<number> {
    const [row] = await select<Record<string, string | number>>(`SELECT count() FROM ${from}${where ? ` WHERE ${where}` : ''}`, settings, timeoutMs);
    return Number(row?.['count()'] ?? 0);
  }

  async function countWhere(meta: TableMeta, where: string): Promise<number> {
    return count(target(meta), where);
  }

  async function requireOneRow(meta: TableMeta, where: string): Promise<void> {
    const n = await countWhere(meta, where);
    if (n === 0) throw new BrowserError('not_found', `no row in ${meta.name} has that primary key`);
    if (n > 1) throw new BrowserError('invalid', `${n} rows of ${meta.name} have that primary key; give more columns to pick one`);
  }

  /** The columns a system table has on this server version (18.16 lacks some later ones), cached. */
  const systemColumns = new Map<string, Promise<Set<string>>>();
  function columnsOfSystemTable(table: string): Promise<Set<string>> {
    let known = systemColumns.get(table);
    if (!known) {
      known = select<{ name: string }>(`SELECT name FROM system.columns WHERE database = 'system' AND table = ${quoteString(table)}`).then(
        (rows) => new Set(rows.map((r) => r.name)),
      );
      known.catch(() => systemColumns.delete(table));
      systemColumns.set(table, known);
    }
    return known;
  }

  async function mutationIds(meta: TableMeta): Promise<Set<string>> {
    const rows = await select<{ mutation_id: string }>(
      `SELECT mutation_id FROM system.mutations WHERE database = ${quoteString(database)} AND table = ${quoteString(meta.name)}`,
    );
    return new Set(rows.map((r) => r.mutation_id));
  }

  /** Runs an ALTER … UPDATE/DELETE and waits for the mutation(s) it started to be done. */
  async function mutate(meta: TableMeta, alter: string): Promise<void> {
    const before = await mutationIds(meta);
    await command(alter);
    const withReason = (await columnsOfSystemTable('mutations')).has('latest_fail_reason');
    const deadline = Date.now() + MUTATION_WAIT_MS;
    for (let pause = 20; ; pause = Math.min(pause * 2, 250)) {
      const rows = await select<{ mutation_id: string; is_done: number | string; reason?: string }>(
        `SELECT mutation_id, is_done${withReason ? ', latest_fail_reason AS reason' : ''} FROM system.mutations ` +
          `WHERE database = ${quoteString(database)} AND table = ${quoteString(meta.name)}`,
      );
      const mine = rows.filter((r) => !before.has(r.mutation_id));
      const failed = mine.find((r) => r.reason);
      if (failed) throw new BrowserError('engine', failed.reason!);
      if (mine.every((r) => Number(r.is_done) === 1)) return;
      if (Date.now() > deadline) {
        throw new BrowserError('timeout', `the change was accepted but is still being applied after ${MUTATION_WAIT_MS} ms; it goes on in the background`);
      }
      await sleep(pause);
    }
  }

  const browser: DatabaseBrowser = {
    engine: 'columnar',

    async ping() {
      await select('SELECT 1 AS ok', {}, 10_000);
    },

    async tables() {
      const tables = await select<{ name: string; engine: string }>(
        `SELECT name, engine FROM system.tables WHERE database = ${quoteString(database)} ORDER BY name`,
      );
      const parts = await select<{ table: string; part_rows: string | number }>(
        `SELECT table, sum(rows) AS part_rows FROM system.parts WHERE database = ${quoteString(database)} AND active GROUP BY table`,
      );
      const partRows = new Map(parts.map((p) => [p.table, Number(p.part_rows)]));
      const entries: TableEntry[] = [];
      for (const t of tables) {
        let rowCount = 0;
        if (t.engine.endsWith('MergeTree')) rowCount = partRows.get(t.name) ?? 0;
        else if (COUNTED_ENGINES.has(t.engine)) {
          rowCount = await count(`${quoteIdentifier(database)}.${quoteIdentifier(t.name)}`, undefined, { max_execution_time: 5 }, 10_000).catch(() => 0);
        }
        entries.push({ id: `${database}.${t.name}`, name: t.name, schema: database, rowCount });
      }
      return entries;
    },

    async rows(table, page) {
      if (!Number.isSafeInteger(page.limit) || page.limit < 1) throw new BrowserError('invalid', 'limit must be a positive whole number');
      if (!Number.isSafeInteger(page.offset) || page.offset < 0) throw new BrowserError('invalid', 'offset must be a whole number, 0 or more');
      const meta = await tableMeta(table);
      if (meta.engine === 'Kafka') throw new BrowserError('invalid', 'reading a Kafka table consumes its messages: it is not browsed');
      const list = meta.columns.map((c) => quoteIdentifier(c.name)).join(', ');
      const order = meta.key.length > 0 ? ` ORDER BY ${meta.key.map(quoteIdentifier).join(', ')}` : '';
      const rows = await select<Record<string, unknown>>(`SELECT ${list} FROM ${target(meta)}${order} LIMIT ${page.offset}, ${page.limit}`);
      const total = await count(target(meta));
      const result: RowsPage = {
        columns: meta.columns.map(({ name, type, primary }) => ({ name, type, primary })),
        rows,
        total,
      };
      return result;
    },

    async query(text, limits) {
      if (!Number.isFinite(limits.timeoutMs) || limits.timeoutMs <= 0) throw new BrowserError('invalid', 'timeoutMs must be a positive number');
      if (!Number.isSafeInteger(limits.maxRows) || limits.maxRows < 1) throw new BrowserError('invalid', 'maxRows must be a positive whole number');
      if (text.trim().length === 0) throw new BrowserError('invalid', 'the statement is empty');
      const queryId = randomUUID();
      const settings: ClickHouseSettings = { max_execution_time: Math.max(1, Math.ceil(limits.timeoutMs / 1000)), timeout_overflow_mode: 'throw' };
      // Cut off on the client: the server may not look at the clock inside a long block (sleep()), and it
      // would otherwise go on after the request is gone.
      const kill = () => {
        command(`KILL QUERY WHERE query_id = ${quoteString(queryId)} ASYNC`, 5_000).catch(() => undefined);
      };
      if (!answersRows(text)) {
        const done = await withDeadline(
          limits.timeoutMs,
          (signal) => client.command({ query: text, query_id: queryId, abort_signal: signal, clickhouse_settings: settings }),
          kill,
        );
        const written = Number(done.summary?.written_rows ?? 0);
        return { columns: [], rows: [], rowCount: Number.isFinite(written) ? written : 0, truncated: false };
      }
      const answer = await withDeadline(
        limits.timeoutMs,
        async (signal) => {
          const result = await client.query({
            query: text,
            format: 'JSON',
            query_id: queryId,
            abort_signal: signal,
            clickhouse_settings: { ...settings, max_result_rows: String(limits.maxRows + 1), result_overflow_mode: 'break' },
          });
          return result.json<Record<string, unknown>>();
        },
        kill,
      );
      const data = answer.data ?? [];
      const rows = data.slice(0, limits.maxRows);
      const result: QueryResult = {
        columns: (answer.meta ?? []).map((m) => ({ name: m.name, type: m.type })),
        rows,
        rowCount: rows.length,
        truncated: data.length > limits.maxRows,
      };
      return result;
    },

    async insertRow(table, values) {
      const meta = await tableMeta(table);
      const entries = valuesObject(values, 'values');
      const names: string[] = [];
      const literals: string[] = [];
      for (const [name, value] of entries) {
        const column = columnOf(meta, name);
        if (column.defaultKind === 'MATERIALIZED' || column.defaultKind === 'ALIAS') {
          throw new BrowserError('invalid', `column ${name} is ${column.defaultKind}: ClickHouse computes it`);
        }
        names.push(quoteIdentifier(name));
        literals.push(literalFor(column.type, value));
      }
      await command(`INSERT INTO ${target(meta)} (${names.join(', ')}) VALUES (${literals.join(', ')})`);
      const key = meta.key.map((c) => [c, values[c] ?? null] as const);
      if (key.length === 0) return { id: null };
      if (key.length === 1) return { id: key[0]![1] };
      return { id: Object.fromEntries(key) };
    },

    async updateRow(table, primaryKey, values) {
      const meta = await tableMeta(table);
      const where = whereFor(meta, primaryKey);
      const assignments = valuesObject(values, 'values').map(([name, value]) => {
        const column = columnOf(meta, name);
        if (column.primary) throw new BrowserError('invalid', `column ${name} is part of the primary key: ClickHouse cannot update it`);
        return `${quoteIdentifier(name)} = ${literalFor(column.type, value)}`;
      });
      await requireOneRow(meta, where);
      await mutate(meta, `ALTER TABLE ${target(meta)} UPDATE ${assignments.join(', ')} WHERE ${where}`);
    },

    async deleteRow(table, primaryKey) {
      const meta = await tableMeta(table);
      const where = whereFor(meta, primaryKey);
      await requireOneRow(meta, where);
      await mutate(meta, `ALTER TABLE ${target(meta)} DELETE WHERE ${where}`);
    },

    async close() {
      await client.close();
    },
  };
  return browser;
}

/** Error codes meaning the server refuses Slipway's own credentials. */
const AUTH_CODES = new Set(['192', '193', '194', '516']);
const TIMEOUT_CODES = new Set(['159']);
/** Network failures of the HTTP client. */
const UNREACHABLE = /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|socket hang up|Timeout error/i;

/** The code and message of a server error: parsed by the client, or (18.16's format) read here. */
function serverError(error: Error): { code: string; message: string } | null {
  if (error instanceof ClickHouseError) return { code: error.code, message: error.message.trim() };
  // 18.16: "Code: 60, e.displayText() = DB::Exception: Table appdb.x doesn't exist., e.what() = DB::Exception"
  const m = /^\s*Code: (\d+)[,.]\s*(?:e\.displayText\(\) = )?(?:DB::Exception: )?(.*?)(?:, e\.what\(\) = \S+)?\s*$/s.exec(error.message);
  return m ? { code: m[1]!, message: m[2]!.trim() } : null;
}

function asBrowserError(error: unknown): Error {
  if (error instanceof BrowserError) return error;
  if (!(error instanceof Error)) return new Error(String(error));
  const server = serverError(error);
  if (server) {
    if (TIMEOUT_CODES.has(server.code)) return new BrowserError('timeout', server.message);
    if (AUTH_CODES.has(server.code)) return new BrowserError('unavailable', server.message);
    return new BrowserError('engine', server.message);
  }
  const code = (error as { code?: unknown }).code;
  if ((typeof code === 'string' && /^E[A-Z]+/.test(code)) || UNREACHABLE.test(error.message)) {
    return new BrowserError('unavailable', `ClickHouse cannot be reached: ${error.message}`);
  }
  return error;
}
