import type { SqlExecutor } from '../src/db/sql-client.js';

/** Terminal sessions the audit log has a start of and no end: open here, or cut short by a stop of Slipway. */
export async function unendedExecSessions(db: SqlExecutor): Promise<{ id: string; startedAt: string }[]> {
  const { rows } = await db.query<{ stream_id: string; recorded_at: string | Date }>(
    `select a.stream_id, a.recorded_at from rm_audit_log a
     where a.type = 'ExecSessionStarted'
       and not exists (select 1 from rm_audit_log b where b.stream_id = a.stream_id and b.type = 'ExecSessionEnded')
     order by a.position`,
  );
  return rows.map((r) => ({ id: r.stream_id.slice('execsession-'.length), startedAt: new Date(r.recorded_at).toISOString() }));
}
