import { z } from 'zod';
import { CHANNEL_TYPES, DEFAULT_NOTIFICATION_EVENTS, NOTIFICATION_EVENTS } from '../../../commands/notification-channel/events.js';
import { notificationPayload } from '../../../commands/notification/events.js';
import { name } from '../validation.js';
import { id, nullableTimestamp, okBody, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

const eventName = z.enum(NOTIFICATION_EVENTS);
const projectIds = z
  .array(z.string().max(100))
  .min(1)
  .max(1000)
  .nullable()
  .meta({ description: 'The projects whose events the channel hears of; null: every project and the installation (an all-project key only). A project-scoped key may only name its own projects.' });

const configDescription =
  'Per type: webhook `{ url, secret? }` (a signing secret of 16+ characters; one is made when absent and shown in the answer once); ' +
  'slack and discord `{ webhookUrl }`; email `{ host, port (587), secure (false: implicit TLS), requireTLS (false: STARTTLS required), user, password, from, to[] }` ' +
  '(a password needs `secure` or `requireTLS`). ' +
  'The webhook URL and signing secret, the Slack and Discord URLs and the SMTP password are stored sealed and never shown (the webhook URL as `scheme://host/…`).';

export const notificationChannel = z
  .object({
    id,
    name: z.string(),
    type: z.enum(CHANNEL_TYPES),
    config: z.record(z.string(), z.unknown()).meta({ description: 'The configuration without its secrets; a webhook `url` masked as `scheme://host/…`.' }),
    storedSecrets: z
      .array(z.string())
      .meta({ description: 'The names (never the values) of the secret config fields stored, e.g. `["password"]`. A change of destination drops them all unless the same request gives new ones.' }),
    events: z.array(eventName),
    projectIds: z.array(id).nullable(),
    status: z.enum(['ok', 'failing']).meta({ description: '`failing`: its last 3 or more delivery attempts failed.' }),
    failuresSinceSuccess: z.number().int(),
    lastError: z.string().nullable(),
    lastFailureAt: nullableTimestamp,
    lastSuccessAt: nullableTimestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'NotificationChannel' });

export const notificationDelivery = z
  .object({
    id: z.string().meta({ description: 'Also sent as `X-Slipway-Delivery`: the same id means the same notification.' }),
    event: eventName,
    status: z.enum(['pending', 'delivered', 'abandoned']),
    test: z.boolean(),
    attempts: z.array(z.object({ attempt: z.number().int(), status: z.number().int().nullable(), error: z.string().nullable(), delivered: z.boolean(), at: timestamp })),
    nextAttemptAt: nullableTimestamp,
    abandonReason: z.string().nullable(),
    payload: notificationPayload,
    createdAt: timestamp,
  })
  .meta({ id: 'NotificationDelivery' });

const base = '/api/notification-channels';
const one = `${base}/:channelId`;
const tag = 'Notifications';

export const notificationChannelsApi = {
  list: endpoint({
    method: 'get',
    path: base,
    operationId: 'listNotificationChannels',
    tag,
    summary: 'The notification channels the key may see (a project-scoped key: those limited to its projects)',
    access: 'read',
    response: z.object({ channels: z.array(notificationChannel) }),
  }),
  create: endpoint({
    method: 'post',
    path: base,
    operationId: 'createNotificationChannel',
    tag,
    summary: 'Create a notification channel',
    description: configDescription,
    access: 'write',
    body: z
      .object({
        name: name(100),
        type: z.enum(CHANNEL_TYPES),
        config: z.record(z.string(), z.unknown()).meta({ description: configDescription }),
        events: z
          .array(eventName)
          .max(NOTIFICATION_EVENTS.length)
          .optional()
          .meta({ description: `Absent: every failure (${DEFAULT_NOTIFICATION_EVENTS.join(', ')}) and none of the successes.` }),
        projectIds: projectIds.optional(),
      })
      .strict(),
    response: z.object({
      channel: notificationChannel,
      secret: z.string().optional().meta({ description: 'webhook only: the signing secret, shown this once.' }),
    }),
    errors: [403, 404],
  }),
  get: endpoint({
    method: 'get',
    path: one,
    operationId: 'getNotificationChannel',
    tag,
    summary: 'One notification channel',
    access: 'read',
    response: z.object({ channel: notificationChannel }),
  }),
  update: endpoint({
    method: 'patch',
    path: one,
    operationId: 'updateNotificationChannel',
    tag,
    summary: 'Change a notification channel; config fields not given keep their values, secrets only while the destination stays',
    description:
      'A change of where the channel sends (email host, port, secure, requireTLS, user; a webhook, Slack or Discord URL) drops every stored secret unless the same request gives new ones; a webhook then gets a new signing secret, shown once as `secret`.',
    access: 'write',
    body: z
      .object({
        name: name(100).optional(),
        config: z.record(z.string(), z.unknown()).optional().meta({ description: configDescription }),
        events: z.array(eventName).max(NOTIFICATION_EVENTS.length).optional(),
        projectIds: projectIds.optional(),
      })
      .strict(),
    response: z.object({
      channel: notificationChannel,
      secret: z.string().optional().meta({ description: 'webhook only, when its URL changed without a new secret: the new signing secret, shown this once.' }),
    }),
    errors: [403, 404],
  }),
  delete: endpoint({
    method: 'delete',
    path: one,
    operationId: 'deleteNotificationChannel',
    tag,
    summary: 'Delete a notification channel (its pending notifications are abandoned, its secrets shredded)',
    access: 'write',
    response: okBody,
  }),
  test: endpoint({
    method: 'post',
    path: `${one}/test`,
    operationId: 'testNotificationChannel',
    tag,
    summary: 'Send a test notification now, once, and say how it went (recorded among the deliveries; not retried)',
    access: 'write',
    body: z.object({ event: eventName.optional().meta({ description: 'The event it pretends to be; absent: the channel’s first.' }) }).strict().optional(),
    response: z.object({ delivery: notificationDelivery }),
  }),
  deliveries: endpoint({
    method: 'get',
    path: `${one}/deliveries`,
    operationId: 'listNotificationDeliveries',
    tag,
    summary: 'The channel’s last 100 notifications, newest first, each with its attempts',
    access: 'read',
    response: z.object({ deliveries: z.array(notificationDelivery) }),
  }),
};
