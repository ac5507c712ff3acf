import type { SqlExecutor } from '../src/db/sql-client.js';
import { recordedFromRow, type EventRow } from '../src/eventstore/event-row.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { Statement } from './batch-writer.js';

/**
 * Events a projector could not apply after bounded retries. The whole envelope is kept, so an operator
 * can retry one later (after a fix, or an upcaster) on any event store, or skip it for good.
 */
export const PARKED_DDL = `
create table if not exists proj_parked (
  projector text not null,
  event_id text not null,
  position text collate "C" not null,
  stream_id text not null,
  revision bigint not null,
  type text not null,
  schema_version integer not null,
  data jsonb not null,
  metadata jsonb not null,
  recorded_at timestamptz not null,
  error text not null,
  attempts integer not null,
  parked_at timestamptz not null default now(),
  primary key (projector, event_id)
);
create table if not exists proj_skipped (
  projector text not null,
  event_id text not null,
  position text collate "C" not null,
  stream_id text not null,
  type text not null,
  error text not null,
  skipped_by text not null,
  reason text not null,
  skipped_at timestamptz not null default now()
);`;

export interface Parking {
  projector: string;
  event: RecordedEvent;
  error: string;
  attempts: number;
}

export interface ParkedRow extends EventRow {
  projector: string;
  position: string;
  error: string;
  attempts: number;
  parked_at: Date | string;
}

export function parkStatement({ projector, event, error, attempts }: Parking): Statement {
  return {
    text: `insert into proj_parked (projector, event_id, position, stream_id, revision, type, schema_version, data, metadata, recorded_at, error, attempts)
           values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10, $11, $12)
           on conflict (projector, event_id) do update set error = excluded.error, attempts = proj_parked.attempts + excluded.attempts, parked_at = now()`,
    params: [
      projector,
      event.id,
      event.position,
      event.streamId,
      event.revision,
      event.type,
      event.schemaVersion,
      JSON.stringify(event.data),
      JSON.stringify(event.metadata),
      event.recordedAt,
      error,
      attempts,
    ],
  };
}

export const recordedOf = (row: ParkedRow): RecordedEvent => recordedFromRow(row, row.position);

export async function listParked(db: SqlExecutor): Promise<ParkedRow[]> {
  const { rows } = await db.query<ParkedRow>('select * from proj_parked order by position, projector');
  return rows;
}

export async function findParked(db: SqlExecutor, projector: string, eventId: string): Promise<ParkedRow | null> {
  const { rows } = await db.query<ParkedRow>('select * from proj_parked where projector = $1 and event_id = $2', [projector, eventId]);
  return rows[0] ?? null;
}

export async function countParked(db: SqlExecutor): Promise<Map<string, number>> {
  const { rows } = await db.query<{ projector: string; n: number }>('select projector, count(*)::int as n from proj_parked group by projector');
  return new Map(rows.map((r) => [r.projector, r.n]));
}

/** Who gave up on a parked event, when and why: kept for good (rebuilds leave it), listed beside the parked events. */
export interface SkippedRow {
  projector: string;
  event_id: string;
  position: string;
  stream_id: string;
  type: string;
  error: string;
  skipped_by: string;
  reason: string;
  skipped_at: Date | string;
}

/** Moves a parked event to the skipped ones with who and why, in one transaction; false when it was not parked. */
export async function skipParkedEvent(db: SqlExecutor, projector: string, eventId: string, by: { actor: string; reason: string }): Promise<boolean> {
  const { rowCount } = await db.query(
    `with gone as (delete from proj_parked where projector = $1 and event_id = $2 returning projector, event_id, position, stream_id, type, error)
     insert into proj_skipped (projector, event_id, position, stream_id, type, error, skipped_by, reason)
     select projector, event_id, position, stream_id, type, error, $3, $4 from gone`,
    [projector, eventId, by.actor, by.reason],
  );
  return rowCount > 0;
}

export async function listSkipped(db: SqlExecutor): Promise<SkippedRow[]> {
  const { rows } = await db.query<SkippedRow>('select * from proj_skipped order by skipped_at, projector');
  return rows;
}
