import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

export const JOB_CONCURRENCY = ['forbid', 'replace', 'allow'] as const;
export type JobConcurrency = (typeof JOB_CONCURRENCY)[number];

export const JOB_DEFAULTS = { timezone: 'UTC', timeoutSeconds: 3600, concurrency: 'forbid', enabled: true } as const;

/** What a job's owner may set; PATCH changes any of them. */
export const jobSettings = z.object({
  name: z.string(),
  schedule: z.string(),
  timezone: z.string(),
  /** A string runs through `sh -c`; an array is the argv. */
  command: z.union([z.string(), z.array(z.string())]),
  timeoutSeconds: z.number().int(),
  concurrency: z.enum(JOB_CONCURRENCY),
  enabled: z.boolean(),
});
export type JobSettings = z.infer<typeof jobSettings>;

/**
 * A scheduled job of an app or worker service (`job-<id>`): a command run from the service's current release at
 * each due time of its schedule. Its runs are `jobrun-<id>` streams (commands/job-run).
 * `service-deleted`: its service was deleted, and its jobs with it (caused by the ServiceDeleted event).
 */
export const jobEvents = {
  JobCreated: jobSettings.extend({ serviceId: z.string(), projectId: z.string() }),
  JobUpdated: z.object({ changes: jobSettings.partial() }),
  JobDeleted: z.object({ reason: z.enum(['request', 'service-deleted']) }),
};
export type JobEvent = EventsOf<typeof jobEvents>;
export const parseJobEvent = eventParser(jobEvents);
