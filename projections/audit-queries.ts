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
  /** The key's name for a `key:<id>` actor; null for any other actor. */
  actor_name: string | null;
}

const COLUMNS = `a.position, a.event_id, a.stream_id, a.revision, a.type, a.schema_version, a.recorded_at, a.actor,
  a.correlation_id, a.causation_id, a.data, k.name as actor_name`;
// Through the keys' primary key, so only the rows of the page are looked up.
const ACTOR_KEY = `left join rm_api_keys k on a.actor like 'key:%' and k.id = substr(a.actor, 5)`;

export interface AuditFilter {
  /** Exclusive; null starts at the beginning (the newest end with `desc`). */
  after: string | null;
  limit: number;
  /** Oldest first (the default) or newest first, where `after` means older than. */
  order?: 'asc' | 'desc';
  /** Only what this project may see: its own streams, and the events that moved a service out of it. */
  projectId?: string;
  stream?: string;
  /** One request's whole story: every event it caused. */
  correlationId?: string;
  actor?: string;
  type?: string;
  excludeType?: string;
}

/**
 * One page of history after `after` (before it, newest first, with `desc`), narrowed by any of project, stream,
 * correlation id, actor and type, or all but one type; each with its key's name when a key made it.
 */
export async function listAuditEvents(db: SqlExecutor, options: AuditFilter): Promise<AuditRow[]> {
  const params: SqlValue[] = [];
  const bind = (value: SqlValue) => `$${params.push(value)}`;
  const descending = options.order === 'desc';
  const where: string[] = [];
  if (!descending) where.push(`a.position > ${bind(options.after ?? '')}`);
  else if (options.after) where.push(`a.position < ${bind(options.after)}`);
  if (options.projectId) {
    const p = bind(options.projectId);
    where.push(`(a.project_id = ${p} or a.previous_project_id = ${p})`);
  }
  if (options.stream) where.push(`a.stream_id = ${bind(options.stream)}`);
  if (options.correlationId) where.push(`a.correlation_id = ${bind(options.correlationId)}`);
  if (options.actor) where.push(`a.actor = ${bind(options.actor)}`);
  if (options.type) where.push(`a.type = ${bind(options.type)}`);
  if (options.excludeType) where.push(`a.type <> all(${bind(options.excludeType.split(','))}::text[])`);
  const { rows } = await db.query<AuditRow>(
    `select ${COLUMNS} from rm_audit_log a ${ACTOR_KEY} ${where.length ? `where ${where.join(' and ')}` : ''} order by a.position ${descending ? 'desc' : 'asc'} limit ${bind(options.limit)}`,
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
