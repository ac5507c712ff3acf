import type { RecordedEvent } from './port.js';

/** An event's columns as the Postgres tables keep them (the log, and the projectors' parking table). */
export interface EventRow {
  event_id: string;
  stream_id: string;
  /** bigint, read as text to stay exact. */
  revision: string;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: RecordedEvent['metadata'];
  recorded_at: Date | string;
}

/** The recorded event a row holds, at `position` (the log computes it, the parking table stores it). */
export const recordedFromRow = (row: EventRow, position: string): RecordedEvent => ({
  id: row.event_id,
  type: row.type,
  schemaVersion: row.schema_version,
  data: row.data,
  metadata: row.metadata,
  streamId: row.stream_id,
  revision: Number(row.revision),
  position,
  recordedAt: new Date(row.recorded_at).toISOString(),
});
