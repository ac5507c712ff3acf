import type { RecordedEvent } from '../src/eventstore/port.js';

/**
 * A read model: its tables, and a pure mapping from one event to the SQL that applies it.
 * Statements must be idempotent (upserts, deletes) so a replayed batch changes nothing.
 */
export interface Projector {
  readonly name: string;
  /** Bump to rebuild this read model from the log on the next start. */
  readonly version: number;
  readonly tables: readonly string[];
  readonly ddl: string;
  apply(event: RecordedEvent): string[];
}

export const CHECKPOINTS_DDL = `
create table if not exists proj_checkpoints (
  projector text primary key,
  version integer not null,
  position text not null default ''
);`;
