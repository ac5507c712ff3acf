import { scheduledRunId } from '../../../commands/job/schedule.js';
import { argvOf } from '../../../commands/shared/command-line.js';
import { cancelJobRun, requestJobRun, skipJobRun } from '../../../commands/job-run/handlers.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { activeJobRunsOfJob, countActiveJobRunsOfService } from '../../../projections/job-run-queries.js';
import { commandOf, findSchedulableJob, MAX_JOBS_PER_SERVICE } from '../../../projections/job-queries.js';
import type { SqlExecutor } from '../../db/sql-client.js';

export interface JobDueDeps {
  /** Actor `system:job-scheduler`. */
  cmd: CommandContext;
  db: SqlExecutor;
}

/** What became of one due time; `created: false` when another scheduler (or an earlier attempt) recorded it. */
export type DueOutcome = { jobId: string; dueAt: number } & (
  | { kind: 'requested' | 'skipped'; runId: string; created: boolean; canceled: string[] }
  | { kind: 'not-run'; why: string }
);

/**
 * A due time that comes this long after it was due (Slipway was down) does not run if the service's current
 * release went live after it: a due time that fell while the service was stopped or not released never runs later.
 */
const LATE_AFTER_MS = 30_000;

const ms = (at: Date | string) => new Date(at).getTime();

/**
 * Acts on one due time of a job: requests its run under the id derived from the job and the due time, after its
 * concurrency policy (forbid: a skip, recorded under that id, while a run of the job is queued or running;
 * replace: those runs are canceled first; allow: nothing else). Appends expect `no_stream`, so any number of
 * schedulers, restarts and retries record one request or one skip per due time.
 * A job of a stopped service, or of one never released, records nothing.
 */
export async function actOnDue(deps: JobDueDeps, jobId: string, dueAt: number, now: number): Promise<DueOutcome> {
  const of = { jobId, dueAt };
  const job = await findSchedulableJob(deps.db, jobId);
  if (!job) return { ...of, kind: 'not-run', why: 'the job is gone or disabled' };
  if (job.service_status === 'stopped') return { ...of, kind: 'not-run', why: 'the service is stopped' };
  if (job.current_deployment_id === null) return { ...of, kind: 'not-run', why: 'the service has no release running' };
  if (now - dueAt > LATE_AFTER_MS && job.last_deployed_at !== null && ms(job.last_deployed_at) > dueAt) {
    return { ...of, kind: 'not-run', why: 'the due time came before the service’s current release went live' };
  }
  const runId = scheduledRunId(jobId, dueAt);
  const dueIso = new Date(dueAt).toISOString();
  const ctx: CommandContext = { ...deps.cmd, correlationId: runId, causationId: null };
  // Runs of later due times are not this due time's to stop: a scheduler that lags never cancels its successors'.
  const others =
    job.concurrency === 'allow' ? [] : (await activeJobRunsOfJob(deps.db, jobId)).filter((r) => r.id !== runId && (r.due_at === null || ms(r.due_at) < dueAt));
  const skip = async (reason: string): Promise<DueOutcome> => {
    const skipped = await skipJobRun(ctx, runId, { serviceId: job.service_id, projectId: job.project_id, jobId, jobName: job.name, dueAt: dueIso, reason });
    return { ...of, kind: 'skipped', runId, created: skipped.created, canceled: [] };
  };
  if (job.concurrency === 'forbid' && others.length > 0) return skip(`run ${others[0]!.id} of this job was still ${others[0]!.status} (concurrency: forbid)`);
  // Only `allow` (or runs started by hand) can pile runs up; the service's backlog is bounded, whatever its jobs say.
  if ((await countActiveJobRunsOfService(deps.db, job.service_id)) >= MAX_JOBS_PER_SERVICE) {
    return skip(`the service already has ${MAX_JOBS_PER_SERVICE} runs queued or running`);
  }
  const canceled: string[] = [];
  for (const other of others) {
    await cancelJobRun(ctx, other.id, `replaced by the run due at ${dueIso} (concurrency: replace)`);
    canceled.push(other.id);
  }
  const requested = await requestJobRun(ctx, runId, {
    serviceId: job.service_id,
    projectId: job.project_id,
    jobId,
    jobName: job.name,
    command: argvOf(commandOf(job)),
    timeoutSeconds: job.timeout_seconds,
    trigger: 'schedule',
    dueAt: dueIso,
    lateMs: Math.max(0, Math.round(now - dueAt)),
  });
  return { ...of, kind: 'requested', runId, created: requested.created, canceled };
}
