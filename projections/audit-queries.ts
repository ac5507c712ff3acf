import type { SqlExecutor, SqlValue } from '../src/db/sql-client.js';

export interface AuditRow {
  position: string;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  schema_version: number;
  recorded_at: Date | string;
  actor: string;
  correlation_id: string;
  causation_id: string | null;
  data: Record<string, unknown>;
}

const COLUMNS = `a.position, a.event_id, a.stream_id, a.revision, a.type, a.schema_version, a.recorded_at, a.actor,
  a.correlation_id, a.causation_id, a.data`;

export interface AuditFilter {
  /** Exclusive; null starts at the beginning. */
  after: string | null;
  limit: number;
  /** Only what this project may see: its own streams, and the events that moved a service out of it. */
  projectId?: string;
  stream?: string;
  /** One request's whole story: every event it caused. */
  correlationId?: string;
  actor?: string;
  type?: string;
}

/** One page of history after `after`, narrowed by any of project, stream, correlation id, actor and type. */
export async function listAuditEvents(db: SqlExecutor, options: AuditFilter): Promise<AuditRow[]> {
  const params: SqlValue[] = [options.after ?? ''];
  const where = [`a.position > $1`];
  const bind = (value: SqlValue) => `$${params.push(value)}`;
  if (options.projectId) {
    const p = bind(options.projectId);
    where.push(`(a.project_id = ${p} or a.previous_project_id = ${p})`);
  }
  if (options.stream) where.push(`a.stream_id = ${bind(options.stream)}`);
  if (options.correlationId) where.push(`a.correlation_id = ${bind(options.correlationId)}`);
  if (options.actor) where.push(`a.actor = ${bind(options.actor)}`);
  if (options.type) where.push(`a.type = ${bind(options.type)}`);
  const { rows } = await db.query<AuditRow>(
    `select ${COLUMNS} from rm_audit_log a where ${where.join(' and ')} order by a.position limit ${bind(options.limit)}`,
    params,
  );
  return rows;
}

/** Whether events made with a key other than `actor` already carry this correlation id. */
export async function correlationTakenByOtherKey(db: SqlExecutor, correlationId: string, actor: string): Promise<boolean> {
  const { rows } = await db.query<{ taken: boolean }>(
    `select exists (select 1 from rm_audit_log where correlation_id = $1 and actor like 'key:%' and actor <> $2) as taken`,
    [correlationId, actor],
  );
  return rows[0]?.taken === true;
}
