import type { z } from 'zod';
import type { JobRunLogRow, JobRunRow } from '../../projections/job-run-queries.js';
import type { jobRun, jobRunLogLine } from './contract/job-runs.js';
import { iso } from './presenters.js';

export type JobRunAnswer = z.infer<typeof jobRun>;

export function presentJobRun(row: JobRunRow): JobRunAnswer {
  return {
    id: row.id,
    serviceId: row.service_id,
    jobId: row.job_id,
    jobName: row.job_name,
    trigger: row.trigger,
    command: row.command,
    status: row.status,
    exitCode: row.exit_code,
    durationMs: row.duration_ms,
    dueAt: iso(row.due_at),
    lateMs: row.late_ms,
    requestedAt: iso(row.requested_at)!,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    reason: row.reason,
  };
}

export function presentJobRunLog(row: JobRunLogRow): z.infer<typeof jobRunLogLine> {
  return { id: row.id, runId: row.run_id, line: row.line, stream: row.stream, createdAt: iso(row.created_at)! };
}
