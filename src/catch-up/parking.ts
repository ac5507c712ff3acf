import type { SqlExecutor, SqlValue } from '../db/sql-client.js';
import { recordedFromRow, type EventRow } from '../eventstore/event-row.js';
import type { RecordedEvent } from '../eventstore/port.js';

/** A statement and its parameters (the shape the batch writer runs). */
export interface Statement {
  text: string;
  params: unknown[];
}

/**
 * Events a follower of the log could not consume after bounded retries: a read model's under its
 * projector's name, a process manager's under `process-manager:<name>`. The whole envelope is kept, so an
 * operator can retry one later (after a fix, or an upcaster) on any event store, or skip it for good.
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

/** The name a process manager's parked events go under (read models park under their projector's name). */
export const parkedNameOf = (processManager: string) => `${PROCESS_MANAGER_PREFIX}${processManager}`;
const PROCESS_MANAGER_PREFIX = 'process-manager:';
const READ_MODELS_ONLY = `projector not like '${PROCESS_MANAGER_PREFIX}%'`;

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

/** Parks one event on its own (a process manager's; a read model parks inside its batch's transaction). */
export async function parkEvent(db: SqlExecutor, parking: Parking): Promise<void> {
  const { text, params } = parkStatement(parking);
  await db.query(text, params as SqlValue[]);
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

/** How many events the read models (not the process managers) have parked. */
export async function countReadModelParked(db: SqlExecutor): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from proj_parked where ${READ_MODELS_ONLY}`);
  return rows[0]!.n;
}

/**
 * The first event of the write that ended at `position` that a read model parked instead of applying, if
 * any: the event at `position`, or an earlier one of the same request (same correlation id and actor, as
 * the audit history records them: a client choosing another's X-Request-Id never sees its parked events).
 */
export async function findParkedOfWrite(db: SqlExecutor, position: string): Promise<{ projector: string; eventId: string; error: string } | null> {
  const sameWrite = `p.position = $1 or (p.metadata->>'correlationId', p.metadata->>'actor') = (select correlation_id, actor from rm_audit_log where position = $1)`;
  const find = (condition: string) =>
    db.query<{ projector: string; event_id: string; error: string }>(
      `select p.projector, p.event_id, p.error from proj_parked p
       where p.${READ_MODELS_ONLY} and p.position <= $1 and (${condition}) order by p.position limit 1`,
      [position],
    );
  // Without the audit read model (a runner of some projectors only), the write's own last event still counts.
  const { rows } = await find(sameWrite).catch(() => find('p.position = $1'));
  return rows[0] ? { projector: rows[0].projector, eventId: rows[0].event_id, error: rows[0].error } : null;
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
