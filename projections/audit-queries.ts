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

const COLUMNS = `a.position, a.event_id, a.stream_id, a.revision, a.type, a.schema_version, a.recorded_at, a.actor,
  a.correlation_id, a.causation_id, a.data`;

/** One page of history after `after`, optionally only what a project may see, or one stream. */
export async function listAuditEvents(
  db: SqlExecutor,
  options: { after: string | null; limit: number; projectId?: string; stream?: string },
): Promise<AuditRow[]> {
  const after = options.after ?? '';
  const stream = options.stream ?? null;
  if (options.projectId) {
    const { rows } = await db.query<AuditRow>(
      `select ${COLUMNS} from rm_audit_log a
       where (a.project_id = $1 or a.previous_project_id = $1) and a.position > $2 and ($3::text is null or a.stream_id = $3)
       order by a.position limit $4`,
      [options.projectId, after, stream, options.limit],
    );
    return rows;
  }
  const { rows } = await db.query<AuditRow>(
    `select ${COLUMNS} from rm_audit_log a
     where a.position > $1 and ($2::text is null or a.stream_id = $2)
     order by a.position limit $3`,
    [after, stream, options.limit],
  );
  return rows;
}
