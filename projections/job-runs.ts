import { JOB_RUN_LOG_CATEGORY, parseJobRunEvent, parseJobRunLogEvent } from '../commands/job-run/events.js';
import { parseServiceEvent } from '../commands/service/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { upsertLogLines } from './log-lines.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

const runEvents = eachEventOf('jobrun', parseJobRunEvent, (event, id, at, out) => {
  const set = (assignments: string) => out.updateById('rm_job_runs', id, assignments);
  switch (event.type) {
    case 'JobRunRequested': {
      const d = event.data;
      out.upsert({
        table: 'rm_job_runs',
        row: {
          id, job_id: d.jobId, job_name: d.jobName, service_id: d.serviceId, project_id: d.projectId, trigger: d.trigger, command: d.command, status: 'queued',
          timeout_seconds: d.timeoutSeconds, due_at: d.dueAt, late_ms: d.lateMs, requested_at: at,
        },
        key: ['id'],
        update: [],
      });
      return;
    }
    case 'JobRunSkipped': {
      const d = event.data;
      out.upsert({
        table: 'rm_job_runs',
        row: {
          id, job_id: d.jobId, job_name: d.jobName, service_id: d.serviceId, project_id: d.projectId, trigger: 'schedule', command: [], status: 'skipped',
          due_at: d.dueAt, reason: d.reason, requested_at: at, finished_at: at,
        },
        key: ['id'],
        update: [],
      });
      return;
    }
    case 'JobRunStarted':
      return set(sql`status = 'running', container_name = ${event.data.containerName}, release_version = ${event.data.releaseVersion}, started_at = ${at}`);
    case 'JobRunCancelRequested':
      return set('cancel_requested = true');
    case 'JobRunFinished': {
      const d = event.data;
      return set(sql`status = ${d.status}, exit_code = ${d.exitCode}, duration_ms = ${d.durationMs}, reason = ${d.reason}, finished_at = ${at}`);
    }
  }
});

const logEvents = eachEventOf(JOB_RUN_LOG_CATEGORY, parseJobRunLogEvent, (event, runId, _at, out) =>
  upsertLogLines(out, 'rm_job_run_logs', { column: 'run_id', id: runId }, event.data),
);

// A deleted service's ended runs and their logs leave the read side. One still unfinished stays until the job
// runner has ended it (it reads it here), and is kept after that: an auditor still finds how it ended.
const serviceDeletions = eachEventOf('service', parseServiceEvent, (event, serviceId, _at, out) => {
  if (event.type !== 'ServiceDeleted') return;
  const ended = sql`select id from rm_job_runs where service_id = ${serviceId} and status not in ('queued', 'running')`;
  out.sql(`delete from rm_job_run_logs where run_id in (${ended})`);
  out.sql(`delete from rm_job_runs where id in (${ended})`);
});

export const jobRunsProjector: Projector = {
  name: 'job-runs',
  version: 1,
  tables: ['rm_job_runs', 'rm_job_run_logs'],
  ddl: `
create table if not exists rm_job_runs (
  id text primary key,
  job_id text,
  job_name text,
  service_id text not null,
  project_id text not null,
  trigger text not null,
  command jsonb not null,
  status text not null,
  timeout_seconds integer,
  exit_code integer,
  duration_ms integer,
  due_at timestamptz,
  late_ms integer,
  reason text,
  container_name text,
  release_version integer,
  cancel_requested boolean not null default false,
  requested_at timestamptz not null,
  started_at timestamptz,
  finished_at timestamptz
);
create table if not exists rm_job_run_logs (
  run_id text not null,
  id integer not null,
  line text not null,
  stream text not null,
  created_at timestamptz not null,
  primary key (run_id, id)
);`,
  indexes: `
create index if not exists rm_job_runs_service on rm_job_runs (service_id, requested_at desc, id desc);
create index if not exists rm_job_runs_job on rm_job_runs (job_id, requested_at desc, id desc) where job_id is not null;
create index if not exists rm_job_runs_unfinished on rm_job_runs (requested_at, id) where status in ('queued', 'running');`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    for (const event of events) {
      const one = [event];
      runEvents(one, out);
      logEvents(one, out);
      serviceDeletions(one, out);
    }
  },
};
