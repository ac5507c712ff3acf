import type { SqlExecutor } from '../src/db/sql-client.js';
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
);`;

export interface Parking {
  projector: string;
  event: RecordedEvent;
  error: string;
  attempts: number;
}

export interface ParkedRow {
  projector: string;
  event_id: string;
  position: string;
  stream_id: string;
  revision: string;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: RecordedEvent['metadata'];
  recorded_at: Date | string;
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

export const recordedOf = (row: ParkedRow): RecordedEvent => ({
  id: row.event_id,
  type: row.type,
  schemaVersion: row.schema_version,
  data: row.data,
  metadata: row.metadata,
  streamId: row.stream_id,
  revision: Number(row.revision),
  position: row.position,
  recordedAt: new Date(row.recorded_at).toISOString(),
});

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
