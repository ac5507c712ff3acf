import type { Engine } from '../shared/database-engine.js';

/** Where Slipway reaches a running engine, and as whom. */
export interface EngineEndpoint {
  host: string;
  port: number;
  user: string | null;
  password: string | null;
  /** The database (schema for mysql, database for ClickHouse) the service's variables name. */
  database: string | null;
  /** Present when the server speaks TLS (postgres, timeseries): verify it against this CA. */
  tls: { ca: string; servername: string } | null;
}

/** `id` is `<schema>.<name>`. */
export interface TableEntry {
  id: string;
  name: string;
  schema: string;
  rowCount: number;
}

export interface ColumnInfo {
  name: string;
  /** The engine's own type name (e.g. `integer`, `varchar(20)`, `UInt64`, `string`). */
  type: string;
  primary: boolean;
}

export interface RowsPage {
  columns: ColumnInfo[];
  rows: Record<string, unknown>[];
  total: number;
}

export interface QueryResult {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
  /** Rows returned (after the cap) or affected, as the engine reports it. */
  rowCount: number;
  /** True when the row cap cut rows off. */
  truncated: boolean;
}

export interface QueryLimits {
  timeoutMs: number;
  maxRows: number;
}

export interface PageRequest {
  limit: number;
  offset: number;
}

/**
 * Browsing, SQL and row edits on one database service. Table names and columns are checked against the
 * engine's catalogue and values bound as parameters (escaped where the engine has none). Every failure a
 * client can cause is a BrowserError.
 */
export interface DatabaseBrowser {
  readonly engine: Engine;
  /** Resolves once the engine answers a real query (or PING); used as the readiness probe too. */
  ping(): Promise<void>;
  /** `database` selects the redis logical database (0–15); other engines ignore it. */
  tables(options: { database?: number }): Promise<TableEntry[]>;
  rows(table: string, page: PageRequest): Promise<RowsPage>;
  query(text: string, limits: QueryLimits): Promise<QueryResult>;
  /** Answers the new row's id: a serial or auto-increment value, the primary key, a redis key, a document _id. */
  insertRow(table: string, values: Record<string, unknown>): Promise<{ id: unknown }>;
  updateRow(table: string, primaryKey: Record<string, unknown>, values: Record<string, unknown>): Promise<void>;
  deleteRow(table: string, primaryKey: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export type BrowserErrorKind =
  /** No such table, column or row: 404. */
  | 'not_found'
  /** The request itself is wrong (bad table id, value of the wrong shape, no primary key): 400. */
  | 'invalid'
  /** The engine refused the statement; the message is the engine's: 422. */
  | 'engine'
  /** The statement ran longer than the limit and was cancelled: 422. */
  | 'timeout'
  /** The engine cannot be reached (not running, still starting): 503. */
  | 'unavailable';

export class BrowserError extends Error {
  override readonly name = 'BrowserError';
  constructor(
    readonly kind: BrowserErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Splits `<schema>.<name>` at its first dot; both parts must be non-empty. */
export function parseTableId(id: string): { schema: string; name: string } {
  const dot = id.indexOf('.');
  if (dot <= 0 || dot === id.length - 1) throw new BrowserError('invalid', `table must be <schema>.<name>, got ${JSON.stringify(id)}`);
  return { schema: id.slice(0, dot), name: id.slice(dot + 1) };
}

export type BrowserFactory = (endpoint: EngineEndpoint) => DatabaseBrowser;
