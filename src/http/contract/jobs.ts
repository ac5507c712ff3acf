import { z } from 'zod';
import { JOB_CONCURRENCY, JOB_DEFAULTS } from '../../../commands/job/events.js';
import { isTimeZone, parseSchedule, SCHEDULE_NICKNAMES } from '../../../commands/job/schedule.js';
import { commandLine, name, text } from '../validation.js';
import { id, nullableTimestamp, okBody, timestamp } from './common.js';
import { endpoint } from './endpoint.js';
import { jobRun, MAX_RUN_TIMEOUT_SECONDS } from './job-runs.js';

const schedule = text(200)
  .trim()
  .min(1, 'must not be empty')
  .meta({ description: `Five cron fields (minute hour day-of-month month day-of-week), or one of ${SCHEDULE_NICKNAMES.join(', ')}.`, example: '*/5 * * * *' });
const timezone = text(64)
  .refine(isTimeZone, 'must be an IANA time zone such as UTC or Europe/Berlin')
  .meta({ description: 'The IANA time zone the schedule is read in (daylight saving time included).', example: 'Europe/Berlin' });
const timeoutSeconds = z.number().int().min(1).max(MAX_RUN_TIMEOUT_SECONDS).meta({ description: 'A run still going after this is stopped and ends `timed_out`.' });
const concurrency = z.enum(JOB_CONCURRENCY).meta({
  description: 'When a due time comes while a run of the job is still queued or running: `forbid` records the due time as skipped, `replace` cancels the running one and starts the new one, `allow` runs both.',
});

/** Issues on the schedule field for a schedule that does not parse (or is never due) in its zone. */
function checkSchedule(body: { schedule?: string; timezone?: string }, ctx: z.core.$RefinementCtx) {
  if (body.schedule === undefined || (body.timezone !== undefined && !isTimeZone(body.timezone))) return;
  const parsed = parseSchedule(body.schedule, body.timezone ?? JOB_DEFAULTS.timezone);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', path: [parsed.field], message: parsed.message });
}

const settingsShape = {
  name: name(63).meta({ description: 'Unique among the service’s jobs (whatever the case).' }),
  schedule,
  timezone,
  command: commandLine,
  timeoutSeconds,
  concurrency,
  enabled: z.boolean().meta({ description: 'A disabled job has no due times; it can still be run now.' }),
};

export const jobBody = z
  .strictObject({
    ...settingsShape,
    timezone: timezone.optional().meta({ description: 'Default `UTC`.' }),
    timeoutSeconds: timeoutSeconds.optional().meta({ description: `Default ${JOB_DEFAULTS.timeoutSeconds}.` }),
    concurrency: concurrency.optional().meta({ description: 'Default `forbid`.' }),
    enabled: settingsShape.enabled.optional().meta({ description: 'Default true.' }),
  })
  .superRefine(checkSchedule);

export const jobPatch = z
  .strictObject(settingsShape)
  .partial()
  .superRefine(checkSchedule)
  .refine((b) => Object.keys(b).length > 0, 'must set at least one of name, schedule, timezone, command, timeoutSeconds, concurrency, enabled');

export const job = z
  .object({
    id,
    serviceId: id,
    name: z.string(),
    schedule: z.string(),
    timezone: z.string(),
    command: z.union([z.string(), z.array(z.string())]).meta({ description: 'As given: a string runs with `sh -c`, an array as argv.' }),
    timeoutSeconds: z.number().int(),
    concurrency: z.enum(JOB_CONCURRENCY),
    enabled: z.boolean(),
    nextRunAt: nullableTimestamp.meta({
      description: 'The next due time; null while the job is disabled, its service is stopped or not yet released (no due time runs then), or the schedule has none left.',
    }),
    lastRun: jobRun.nullable().meta({ description: 'The job’s latest run (scheduled, skipped or run now), or null.' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Job' });

const tag = 'Jobs';
const jobAnswer = z.object({ job });

export const jobsApi = {
  create: endpoint({
    method: 'post',
    path: '/api/services/:serviceId/jobs',
    operationId: 'createJob',
    tag,
    summary: 'Schedule a command of an app or worker service',
    description:
      'At each due time the command runs in a container of the service’s current release (as `POST /api/services/:serviceId/runs` runs one). A bad schedule or zone is 400 `validation_failed` naming the field; a name the service’s jobs already have, or a database or static service, is 409.',
    access: 'write',
    body: jobBody,
    response: jobAnswer,
  }),
  list: endpoint({
    method: 'get',
    path: '/api/services/:serviceId/jobs',
    operationId: 'listJobs',
    tag,
    summary: 'A service’s scheduled jobs, each with its next due time and its latest run',
    access: 'read',
    response: z.object({ jobs: z.array(job) }),
  }),
  get: endpoint({
    method: 'get',
    path: '/api/jobs/:jobId',
    operationId: 'getJob',
    tag,
    summary: 'A scheduled job',
    access: 'read',
    response: jobAnswer,
  }),
  update: endpoint({
    method: 'patch',
    path: '/api/jobs/:jobId',
    operationId: 'updateJob',
    tag,
    summary: 'Change a scheduled job',
    description: 'Fields not given keep their value. A new schedule, zone or enabling counts from now: no due time before it runs as missed.',
    access: 'write',
    body: jobPatch,
    response: jobAnswer,
  }),
  delete: endpoint({
    method: 'delete',
    path: '/api/jobs/:jobId',
    operationId: 'deleteJob',
    tag,
    summary: 'Delete a scheduled job',
    description: 'Its runs stay listed with the service’s runs; one still running goes on to its end.',
    access: 'write',
    response: okBody,
  }),
  run: endpoint({
    method: 'post',
    path: '/api/jobs/:jobId/runs',
    operationId: 'runJobNow',
    tag,
    summary: 'Run a job now, whatever its schedule',
    description: 'A run of trigger `manual`, queued at once (the job’s concurrency applies to due times only). Follow it with `GET /api/job-runs/:runId/stream`. 409 for a stopped service or one never released.',
    access: 'write',
    response: z.object({ run: jobRun }),
  }),
  runs: endpoint({
    method: 'get',
    path: '/api/jobs/:jobId/runs',
    operationId: 'listJobRuns',
    tag,
    summary: 'A job’s runs (scheduled, skipped and run now), newest first',
    access: 'read',
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(50),
      before: id.optional().meta({ description: 'The next page: runs requested before this one.' }),
    }),
    response: z.object({ runs: z.array(jobRun) }),
  }),
};
