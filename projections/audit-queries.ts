import type { SqlExecutor } from '../src/db/sql-client.js';

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

/** One page of history after `after`, optionally only what a project may see. */
export async function listAuditEvents(
  db: SqlExecutor,
  options: { after: string | null; limit: number; projectId?: string; stream?: string },
): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `select position, event_id, stream_id, revision, type, schema_version, recorded_at, actor, correlation_id,
            causation_id, data
     from rm_audit_log
     where position > $1
       and ($2::text is null or project_ids @> array[$2::text])
       and ($3::text is null or stream_id = $3)
     order by position
     limit $4`,
    [options.after ?? '', options.projectId ?? null, options.stream ?? null, options.limit],
  );
  return rows;
}
