import { z } from 'zod';
import { JOB_RUN_TRIGGERS } from '../../../commands/job-run/events.js';
import { commandLine } from '../validation.js';
import { id, nullableTimestamp, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

export const JOB_RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'timed_out', 'canceled', 'skipped'] as const;

export const jobRun = z
  .object({
    id,
    serviceId: id,
    jobId: id.nullable().meta({ description: 'The scheduled job it ran for; null for a one-off command.' }),
    jobName: z.string().nullable(),
    trigger: z.enum(JOB_RUN_TRIGGERS).meta({ description: '`schedule`: a job\'s due time; `manual`: a job run now on request; `one-off`: a command given with `POST /api/services/:serviceId/runs`.' }),
    command: z.array(z.string()).meta({ description: 'The argv it runs (a command given as a string runs as `["sh", "-c", string]`); empty for a skipped due time.' }),
    status: z.enum(JOB_RUN_STATUSES).meta({
      description: '`queued`: waiting for the job runner (at most a few runs at once per installation); `succeeded`: exit code 0; `failed`: another exit code, or it could not start (see `reason`); `timed_out`: stopped past its `timeoutSeconds`; `canceled`: stopped on request; `skipped`: a due time that did not run (see `reason`).',
    }),
    exitCode: z.number().int().nullable().meta({ description: 'The command\'s exit code; null while it runs and when it never ended by itself.' }),
    durationMs: z.number().int().nullable(),
    dueAt: nullableTimestamp.meta({ description: 'The due time a scheduled run stands for.' }),
    lateMs: z.number().int().nullable().meta({ description: 'How late after its due time a scheduled run was requested (a due time missed while Slipway was down).' }),
    requestedAt: timestamp,
    startedAt: nullableTimestamp,
    finishedAt: nullableTimestamp,
    reason: z.string().nullable().meta({ description: 'Why it failed, was canceled or skipped (a failed command\'s last lines); null otherwise.' }),
  })
  .meta({ id: 'JobRun' });

export const jobRunLogLine = z
  .object({
    id: z.number().int().meta({ description: 'Increases along the log: the last one seen is where a reader goes on.' }),
    runId: id,
    line: z.string().meta({ description: 'Secret values are redacted.' }),
    stream: z.enum(['stdout', 'stderr', 'system']),
    createdAt: timestamp,
  })
  .meta({ id: 'JobRunLogLine' });

export const MAX_RUN_TIMEOUT_SECONDS = 86_400;
export const DEFAULT_RUN_TIMEOUT_SECONDS = 3_600;

export const oneOffRunBody = z.strictObject({
  command: commandLine,
  timeoutSeconds: z.number().int().min(1).max(MAX_RUN_TIMEOUT_SECONDS).optional().meta({ description: `Stopped past this and ended \`timed_out\` (default ${DEFAULT_RUN_TIMEOUT_SECONDS}).` }),
});

const tag = 'Job runs';

export const jobRunsApi = {
  create: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/runs',
    operationId: 'runCommand',
    tag,
    summary: 'Run a one-off command in a container of the service’s current release',
    description:
      'Answers at once with the queued run; follow it with its stream. The container runs the current release\'s image with its variables, on the project\'s network, with the service\'s limits; nothing is published. 409 for a database service, a stopped service, one never released, or one with 20 runs already queued or running.',
    access: 'write',
    body: oneOffRunBody,
    response: z.object({ run: jobRun }),
    errors: [409],
  }),
  list: endpoint({
    method: 'get',
    path: '/api/services/:serviceId/runs',
    operationId: 'listServiceRuns',
    tag,
    summary: 'The service’s runs (one-off commands and job runs), newest first',
    access: 'read',
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(50),
      before: id.optional().meta({ description: 'The next page: runs requested before this one.' }),
    }),
    response: z.object({ runs: z.array(jobRun) }),
  }),
  get: endpoint({
    method: 'get',
    path: '/api/job-runs/:runId',
    operationId: 'getJobRun',
    tag,
    summary: 'One run, with its outcome once it has ended',
    access: 'read',
    response: z.object({ run: jobRun }),
  }),
  cancel: endpoint({
    method: 'post',
    path: '/api/job-runs/:runId/cancel',
    operationId: 'cancelJobRun',
    tag,
    summary: 'Cancel a queued or running run (its container is stopped)',
    description: 'The run ends `canceled`. 409 once it has ended.',
    access: 'write',
    response: z.object({ run: jobRun }),
    errors: [409],
  }),
  logs: endpoint({
    method: 'get',
    path: '/api/job-runs/:runId/logs',
    operationId: 'getJobRunLogs',
    tag,
    summary: 'The run’s output so far',
    access: 'read',
    response: z.object({ logs: z.array(jobRunLogLine) }),
  }),
  stream: endpoint({
    method: 'get',
    path: '/api/job-runs/:runId/stream',
    operationId: 'streamJobRunLogs',
    tag,
    summary: 'The run’s output as Server-Sent Events, until it ends',
    description: 'First `snapshot` (the output so far), then a `log` event per new line; `ping` every 5 s. Once the run has ended: `end` with the run as it ended (status, exit code, duration), and the stream closes.',
    access: 'read',
    stream: {
      snapshot: z.array(jobRunLogLine),
      log: jobRunLogLine,
      end: z.object({ run: jobRun }),
      ping: z.object({ t: z.number().int().meta({ description: 'Milliseconds since the epoch.' }) }),
    },
  }),
};
