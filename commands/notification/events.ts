import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { NOTIFICATION_EVENTS } from '../notification-channel/events.js';

/** What a receiver is told (the webhook body; Slack, Discord and email are written from it). No secrets. */
export const notificationPayload = z.object({
  id: z.string(),
  event: z.enum(NOTIFICATION_EVENTS),
  occurredAt: z.string(),
  project: z.object({ id: z.string(), name: z.string() }).nullable(),
  service: z.object({ id: z.string(), name: z.string() }).nullable(),
  deployment: z.object({ id: z.string(), commitSha: z.string().nullable() }).optional(),
  /** A scheduled job's run that failed or timed out (`job.failed`). */
  jobRun: z.object({ id: z.string(), jobId: z.string(), jobName: z.string(), status: z.string(), exitCode: z.number().int().nullable() }).optional(),
  reason: z.string().optional(),
  explanationUrl: z.string().optional(),
  /** Dashboard pages, for people (Slack, Discord and email show these). */
  links: z.record(z.string(), z.string()),
  /** The same things in the API, for programs; absent from notifications recorded before it existed. */
  apiLinks: z.record(z.string(), z.string()).optional(),
});
export type NotificationPayload = z.infer<typeof notificationPayload>;

/**
 * One notification to one channel (`notification-<id>`, the id derived from the channel and the event that
 * caused it, so queuing it twice records it once) and every attempt to deliver it.
 */
export const notificationEvents = {
  NotificationQueued: z.object({ channelId: z.string(), payload: notificationPayload, test: z.boolean().default(false) }),
  NotificationAttempted: z.object({
    channelId: z.string(),
    attempt: z.number().int().min(1),
    /** The receiver's HTTP status (or SMTP reply code); null when none came (network error, timeout). */
    status: z.number().int().nullable(),
    error: z.string(),
    /** When it is tried again; null when it is not (a 4xx, or 24 hours have passed). */
    retryAt: z.string().nullable(),
  }),
  NotificationDelivered: z.object({ channelId: z.string(), attempt: z.number().int().min(1), status: z.number().int().nullable() }),
  NotificationAbandoned: z.object({ channelId: z.string(), reason: z.string() }),
};
export type NotificationEvent = EventsOf<typeof notificationEvents>;
export const parseNotificationEvent = eventParser(notificationEvents);
