import type { z } from 'zod';
import { nextDueAfter, parseSchedule } from '../../commands/job/schedule.js';
import { commandOf, type JobRow } from '../../projections/job-queries.js';
import { listJobRuns } from '../../projections/job-run-queries.js';
import type { ServiceRow } from '../../projections/service-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { job } from './contract/jobs.js';
import { presentJobRun } from './job-run-answers.js';
import { iso } from './presenters.js';

export type JobAnswer = z.infer<typeof job>;

/** Whether the service's jobs run at their due times: it runs a release and was not stopped. */
export const runsJobs = (service: Pick<ServiceRow, 'status' | 'current_deployment_id'>) => service.status !== 'stopped' && service.current_deployment_id !== null;

/** The next due time the scheduler acts on; null when none will run (see the contract's `nextRunAt`). */
function nextRunAt(row: JobRow, service: Pick<ServiceRow, 'status' | 'current_deployment_id'>, now: number): string | null {
  if (!row.enabled || !runsJobs(service)) return null;
  const parsed = parseSchedule(row.schedule, row.timezone);
  const next = parsed.ok ? nextDueAfter(parsed.cron, now) : null;
  return next === null ? null : new Date(next).toISOString();
}

/** A job as the API answers it, with its next due time and its latest run from the job runs read model. */
export async function presentJob(db: SqlExecutor, row: JobRow, service: Pick<ServiceRow, 'status' | 'current_deployment_id'>, now = Date.now()): Promise<JobAnswer> {
  const [last] = await listJobRuns(db, { jobId: row.id, limit: 1 });
  return {
    id: row.id,
    serviceId: row.service_id,
    name: row.name,
    schedule: row.schedule,
    timezone: row.timezone,
    command: commandOf(row),
    timeoutSeconds: row.timeout_seconds,
    concurrency: row.concurrency,
    enabled: row.enabled,
    nextRunAt: nextRunAt(row, service, now),
    lastRun: last ? presentJobRun(last) : null,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
