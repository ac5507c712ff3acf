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
  /** The names of the secret fields `secrets` holds (never their values): what an answer may say is stored. */
  secretFields: z.array(z.string()),
  /**
   * Only in events written before webhook URLs were sealed (schema version 1), where the URL is in clear: the
   * upcaster moves it here (the visible config gets its masked form) so deliveries still reach it. Never shown.
   */
  legacyUrl: z.string().optional(),
};

/** A notification channel (`notificationchannel-<id>`): where Slipway tells people what happened. */
export const notificationChannelEvents = {
  NotificationChannelCreated: z.object({ type: z.enum(CHANNEL_TYPES), ...channelFields }),
  NotificationChannelUpdated: z.object(channelFields).partial(),
  NotificationChannelDeleted: z.object({}),
};
export type NotificationChannelEvent = EventsOf<typeof notificationChannelEvents>;
export const parseNotificationChannelEvent = eventParser(notificationChannelEvents);
