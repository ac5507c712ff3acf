export type SqlValue = string | number | boolean | null | bigint | Date | Buffer | unknown[] | Record<string, unknown>;

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** What both PGlite and a `pg` pool offer to the rest of Slipway. */
export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, params?: readonly SqlValue[]): Promise<QueryResult<R>>;
  /** Runs several statements without parameters in one round trip. */
  exec(text: string): Promise<void>;
}

export interface SqlClient extends SqlExecutor {
  readonly kind: 'pglite' | 'postgres';
  /** Every statement of the transaction must go through `tx`: PGlite has a single connection. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /**
   * Each statement with its parameters bound, to run as one statement of a multi-statement `exec`, in one
   * round trip. PGlite: the `execute` of the statement prepared (its plan kept), or null where it cannot be
   * prepared; elsewhere absent, and the caller writes the values in.
   */
  bound?(statements: readonly { text: string; params: readonly SqlValue[] }[]): Promise<(string | null)[]>;
  /**
   * Whether the store sleeps: PGlite in a data directory closes its thread after a quiet spell and opens it
   * again at the next statement. Periodic work (polls, reconcile ticks, upkeep) skips while it sleeps.
   */
  asleep(): boolean;
  /** Activity that keeps the store awake (requests, appends); periodic work does not. */
  touch(): void;
  close(): Promise<void>;
}
