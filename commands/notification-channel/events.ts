import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { CHANNEL_TYPES, NOTIFICATION_EVENTS } from './event-names.js';

export { CHANNEL_TYPES, DEFAULT_NOTIFICATION_EVENTS, NOTIFICATION_EVENTS, type ChannelType, type NotificationEventName } from './event-names.js';

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
