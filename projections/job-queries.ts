import type { SqlExecutor } from '../src/db/sql-client.js';
import type { JobConcurrency } from '../commands/job/events.js';

export interface JobRow {
  id: string;
  service_id: string;
  name: string;
  schedule: string;
  timezone: string;
  /** JSON: a string or an array of strings. */
  command: string;
  timeout_seconds: number;
  concurrency: JobConcurrency;
  enabled: boolean;
  /** Its service was deleted; its JobDeleted is not recorded yet. Hidden from every reader but the scheduler. */
  deleting: boolean;
  /** Since when the schedule, zone and enabling are as they are: no due time before it counts as missed. */
  schedule_since: Date | string;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A job with what its scheduler needs of its service now. */
export interface SchedulableJobRow extends JobRow {
  project_id: string;
  service_status: string;
  /** The deployment of the release that runs; null before the first release. */
  current_deployment_id: string | null;
  /** When the current release went live. */
  last_deployed_at: Date | string | null;
}

/**
 * The most jobs a service may have. It also bounds what its schedules may leave waiting: a due time of a service
 * with this many runs queued or running is skipped (see src/processes/job/job-due.ts).
 */
export const MAX_JOBS_PER_SERVICE = 100;

/** The job's command as it was given. */
export const commandOf = (row: Pick<JobRow, 'command'>): string | string[] => JSON.parse(row.command) as string | string[];

export async function findJob(db: SqlExecutor, id: string): Promise<JobRow | null> {
  const { rows } = await db.query<JobRow>('select * from rm_jobs where id = $1 and not deleting', [id]);
  return rows[0] ?? null;
}

export async function listJobsOfService(db: SqlExecutor, serviceId: string): Promise<JobRow[]> {
  const { rows } = await db.query<JobRow>('select * from rm_jobs where service_id = $1 and not deleting order by created_at, id', [serviceId]);
  return rows;
}

export async function countJobsOfService(db: SqlExecutor, serviceId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from rm_jobs where service_id = $1 and not deleting', [serviceId]);
  return rows[0]?.n ?? 0;
}

/** The enabled jobs of live services: what the scheduler plans. */
export async function listEnabledJobs(db: SqlExecutor): Promise<JobRow[]> {
  const { rows } = await db.query<JobRow>('select * from rm_jobs where enabled and not deleting order by id');
  return rows;
}

/** One job with its service's state, as the scheduler reads it at a due time; null once gone or disabled. */
export async function findSchedulableJob(db: SqlExecutor, id: string): Promise<SchedulableJobRow | null> {
  const { rows } = await db.query<SchedulableJobRow>(
    `select j.*, s.project_id, s.status as service_status, s.current_deployment_id, s.last_deployed_at
     from rm_jobs j join rm_services s on s.id = j.service_id where j.id = $1 and j.enabled and not j.deleting`,
    [id],
  );
  return rows[0] ?? null;
}

/** Jobs whose service was deleted and whose own deletion is still to be recorded. */
export async function listJobsOfDeletedServices(db: SqlExecutor): Promise<Pick<JobRow, 'id' | 'service_id'>[]> {
  const { rows } = await db.query<Pick<JobRow, 'id' | 'service_id'>>('select id, service_id from rm_jobs where deleting order by service_id, id');
  return rows;
}
