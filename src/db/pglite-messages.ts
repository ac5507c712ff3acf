import type { SqlValue } from './sql-client.js';

/** What the server's thread asks of the PGlite thread; `tx` names an open transaction (null: none). */
export type ThreadRequest =
  | { id: number; op: 'query'; text: string; params: readonly SqlValue[]; tx: number | null }
  | { id: number; op: 'exec'; text: string; tx: number | null }
  | { id: number; op: 'bound'; statements: readonly { text: string; params: readonly SqlValue[] }[] }
  | { id: number; op: 'begin'; tx: number }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'listen'; channel: string }
  | { id: number; op: 'unlisten'; channel: string }
  | { id: number; op: 'close' };

export type ThreadReply =
  | { id: number; result: unknown }
  | { id: number; error: SerializedError }
  | { notify: string }
  | { ready: true }
  | { failed: SerializedError };

/** An error as it crosses threads: its message and its own fields (`code`, `detail`, …), which cloning would drop. */
export interface SerializedError {
  message: string;
  fields: Record<string, unknown>;
}

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return { message: error.message, fields };
}

export function deserializeError({ message, fields }: SerializedError): Error {
  return Object.assign(new Error(message), fields);
}
