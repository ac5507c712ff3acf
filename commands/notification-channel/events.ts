import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

export const CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'email'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const NOTIFICATION_EVENTS = [
  'deployment.failed',
  'deployment.succeeded',
  'deployment.rolled_back',
  'service.unhealthy',
  'service.recovered',
  'backup.failed',
  'backup.succeeded',
  'certificate.failed',
  'certificate.expiring',
  'webhook.rejected',
] as const;
export type NotificationEventName = (typeof NOTIFICATION_EVENTS)[number];

/** What a new channel gets when it names no events: every failure, none of the successes. */
export const DEFAULT_NOTIFICATION_EVENTS: NotificationEventName[] = [
  'deployment.failed',
  'deployment.rolled_back',
  'service.unhealthy',
  'backup.failed',
  'certificate.failed',
  'certificate.expiring',
  'webhook.rejected',
];

const channelFields = {
  name: z.string(),
  events: z.array(z.enum(NOTIFICATION_EVENTS)),
  /** null: every project (only an all-project key may say so). */
  projectIds: z.array(z.string()).nullable(),
  config: z.record(z.string(), z.unknown()),
  /** The secret fields of the configuration as JSON, sealed under the channel's own data key. */
  secrets: z.string(),
};

/** A notification channel (`notificationchannel-<id>`): where Slipway tells people what happened. */
export const notificationChannelEvents = {
  NotificationChannelCreated: z.object({ type: z.enum(CHANNEL_TYPES), ...channelFields }),
  NotificationChannelUpdated: z.object(channelFields).partial(),
  NotificationChannelDeleted: z.object({}),
};
export type NotificationChannelEvent = EventsOf<typeof notificationChannelEvents>;
export const parseNotificationChannelEvent = eventParser(notificationChannelEvents);
