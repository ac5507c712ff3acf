import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';

/**
 * A read model: its tables, and a pure mapping from events to the writes that apply them.
 * Writes must be idempotent (upserts, deletes) so a replayed batch changes nothing.
 */
export interface Projector {
  readonly name: string;
  /** Bump to rebuild this read model from the log on the next start. */
  readonly version: number;
  readonly tables: readonly string[];
  readonly ddl: string;
  /** Secondary indexes, kept apart so a rebuild can create them after loading. */
  readonly indexes?: string;
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter): void;
}

/**
 * For projectors whose events are independent of one another: each event of a `<category>-<id>` stream,
 * parsed, with its aggregate id and the time it was recorded.
 */
export function eachEventOf<E>(
  category: string,
  parse: (recorded: RecordedEvent) => E | null,
  apply: (event: E, id: string, recordedAt: string, out: BatchWriter) => void,
) {
  const prefix = `${category}-`;
  return (events: readonly RecordedEvent[], out: BatchWriter) => {
    for (const recorded of events) {
      if (!recorded.streamId.startsWith(prefix)) continue;
      const event = parse(recorded);
      if (event) apply(event, recorded.streamId.slice(prefix.length), recorded.recordedAt, out);
    }
  };
}

export const CHECKPOINTS_DDL = `
create table if not exists proj_checkpoints (
  projector text primary key,
  version integer not null,
  position text collate "C" not null default ''
);`;
