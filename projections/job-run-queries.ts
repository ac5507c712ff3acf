import type { SqlExecutor, SqlValue } from '../src/db/sql-client.js';

export type JobRunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'timed_out' | 'canceled' | 'skipped';

export interface JobRunRow {
  id: string;
  job_id: string | null;
  job_name: string | null;
  service_id: string;
  project_id: string;
  trigger: 'schedule' | 'manual' | 'one-off';
  command: string[];
  status: JobRunStatus;
  timeout_seconds: number | null;
  exit_code: number | null;
  duration_ms: number | null;
  due_at: Date | string | null;
  late_ms: number | null;
  reason: string | null;
  container_name: string | null;
  release_version: number | null;
  cancel_requested: boolean;
  requested_at: Date | string;
  started_at: Date | string | null;
  finished_at: Date | string | null;
}

export interface JobRunLogRow {
  run_id: string;
  id: number;
  line: string;
  stream: 'stdout' | 'stderr' | 'system';
  created_at: Date | string;
}

export const isActive = (status: JobRunStatus) => status === 'queued' || status === 'running';

export async function findJobRun(db: SqlExecutor, id: string): Promise<JobRunRow | null> {
  const { rows } = await db.query<JobRunRow>('select * from rm_job_runs where id = $1', [id]);
  return rows[0] ?? null;
}

export interface JobRunFilter {
  jobId?: string;
  serviceId?: string;
  limit: number;
  /** Runs requested before this one (its id): the next page. */
  before?: string;
}

/** Newest first (by request time, then id); a page ends before the run `before`. */
export async function listJobRuns(db: SqlExecutor, filter: JobRunFilter): Promise<JobRunRow[]> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const param = (value: SqlValue) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.jobId !== undefined) where.push(`job_id = ${param(filter.jobId)}`);
  if (filter.serviceId !== undefined) where.push(`service_id = ${param(filter.serviceId)}`);
  if (filter.before !== undefined) {
    const b = param(filter.before);
    where.push(`(requested_at, id) < (select requested_at, id from rm_job_runs where id = ${b})`);
  }
  const { rows } = await db.query<JobRunRow>(
    `select * from rm_job_runs ${where.length ? `where ${where.join(' and ')}` : ''} order by requested_at desc, id desc limit ${param(filter.limit)}`,
    params,
  );
  return rows;
}

/** A job's runs that are queued or running, oldest first. */
export async function activeJobRunsOfJob(db: SqlExecutor, jobId: string): Promise<JobRunRow[]> {
  const { rows } = await db.query<JobRunRow>("select * from rm_job_runs where job_id = $1 and status in ('queued', 'running') order by requested_at, id", [jobId]);
  return rows;
}

/** How many of the service's runs are queued or running. */
export async function countActiveJobRunsOfService(db: SqlExecutor, serviceId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>("select count(*)::int as n from rm_job_runs where service_id = $1 and status in ('queued', 'running')", [serviceId]);
  return rows[0]?.n ?? 0;
}

/** Every run that is queued or running, oldest first: what the job runner takes up (and recovers at start-up). */
export async function unfinishedJobRuns(db: SqlExecutor): Promise<JobRunRow[]> {
  const { rows } = await db.query<JobRunRow>("select * from rm_job_runs where status in ('queued', 'running') order by requested_at, id");
  return rows;
}

export async function listJobRunLogs(db: SqlExecutor, runId: string, afterId = 0): Promise<JobRunLogRow[]> {
  const { rows } = await db.query<JobRunLogRow>('select * from rm_job_run_logs where run_id = $1 and id > $2 order by id', [runId, afterId]);
  return rows;
}

/** The number of the last line of a run's log (0: none), so a resumed run appends after it. */
export async function lastJobRunLogLine(db: SqlExecutor, runId: string): Promise<number> {
  const { rows } = await db.query<{ last: number | null }>('select max(id) as last from rm_job_run_logs where run_id = $1', [runId]);
  return rows[0]?.last ?? 0;
}

/** How many lines of the run's own output (not Slipway's) its log holds. */
export async function countJobRunOutputLines(db: SqlExecutor, runId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>("select count(*)::int as n from rm_job_run_logs where run_id = $1 and stream <> 'system'", [runId]);
  return rows[0]?.n ?? 0;
}

/** The ids of the runs among `ids` that have ended (or are unknown): containers left of them can go. */
export async function endedJobRunIds(db: SqlExecutor, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>("select id from rm_job_runs where id = any($1::text[]) and status in ('queued', 'running')", [ids as string[]]);
  const active = new Set(rows.map((r) => r.id));
  return new Set(ids.filter((id) => !active.has(id)));
}
