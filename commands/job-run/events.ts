import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { logChunk } from '../shared/log-chunk.js';

/** `schedule`: a job's due time; `manual`: a job run now on request; `one-off`: a command given with the request. */
export const JOB_RUN_TRIGGERS = ['schedule', 'manual', 'one-off'] as const;
export type JobRunTrigger = (typeof JOB_RUN_TRIGGERS)[number];
export const JOB_RUN_OUTCOMES = ['succeeded', 'failed', 'timed_out', 'canceled'] as const;
export type JobRunOutcome = (typeof JOB_RUN_OUTCOMES)[number];

/**
 * A command run to its end in a container of the service's current release (`jobrun-<id>`). Requested means
 * queued: the job runner takes it from the log. A scheduled run's id derives from its job and due time, and
 * its stream is created with `no_stream`, so a due time is requested (or skipped) once whoever asks.
 */
export const jobRunEvents = {
  JobRunRequested: z.object({
    serviceId: z.string(),
    projectId: z.string(),
    /** Null for a one-off command. */
    jobId: z.string().nullable(),
    jobName: z.string().nullable(),
    /** argv; a command given as one string is `['sh', '-c', string]`. */
    command: z.array(z.string()).min(1),
    timeoutSeconds: z.number().int().min(1),
    trigger: z.enum(JOB_RUN_TRIGGERS),
    /** The due time a scheduled run stands for (ISO). */
    dueAt: z.string().nullable(),
    /** How long after its due time a scheduled run was requested (a due time missed while Slipway was down). */
    lateMs: z.number().int().min(0).nullable(),
  }),
  /** A due time that did not run (the job's previous run still going under `concurrency: forbid`, …). */
  JobRunSkipped: z.object({
    serviceId: z.string(),
    projectId: z.string(),
    jobId: z.string(),
    jobName: z.string(),
    dueAt: z.string(),
    reason: z.string(),
  }),
  /** Recorded before the container is started: its name carries the run id, so a restart finds it. */
  JobRunStarted: z.object({ containerName: z.string(), releaseId: z.string(), releaseVersion: z.number().int(), imageId: z.string() }),
  JobRunCancelRequested: z.object({ reason: z.string() }),
  JobRunFinished: z.object({
    status: z.enum(JOB_RUN_OUTCOMES),
    /** The command's exit code; null when it never ended by itself (timed out, canceled, never started). */
    exitCode: z.number().int().nullable(),
    durationMs: z.number().int().min(0),
    reason: z.string().nullable(),
  }),
};
export type JobRunEvent = EventsOf<typeof jobRunEvents>;
export const parseJobRunEvent = eventParser(jobRunEvents);
export type JobRunRequest = Extract<JobRunEvent, { type: 'JobRunRequested' }>['data'];
export type JobRunSkip = Extract<JobRunEvent, { type: 'JobRunSkipped' }>['data'];
export type JobRunStart = Extract<JobRunEvent, { type: 'JobRunStarted' }>['data'];
export type JobRunEnd = Extract<JobRunEvent, { type: 'JobRunFinished' }>['data'];

/** A run's output, in chunks on its own stream (`jobrunlog-<id>`), shaped like a deployment's log. */
export const jobRunLogEvents = {
  JobRunLogAppended: logChunk,
};
export type JobRunLogEvent = EventsOf<typeof jobRunLogEvents>;
export const parseJobRunLogEvent = eventParser(jobRunLogEvents);
export const JOB_RUN_LOG_CATEGORY = 'jobrunlog';
