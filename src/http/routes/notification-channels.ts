import { randomBytes, randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { DEFAULT_NOTIFICATION_EVENTS, type ChannelType } from '../../../commands/notification-channel/events.js';
import {
  channelSecrets,
  createNotificationChannel,
  deleteNotificationChannel,
  openNotificationChannel,
  updateNotificationChannel,
} from '../../../commands/notification-channel/handlers.js';
import { queueNotification, recordNotificationAttempt } from '../../../commands/notification/handlers.js';
import { findNotificationChannel, listNotificationChannels, listNotificationsOf, type NotificationChannelRow } from '../../../projections/notification-channel-queries.js';
import { destinationMoved, SECRET_FIELDS } from '../../../commands/notification-channel/destination.js';
import { channelConfigSchemas, destinationOfConfig, splitConfig, suppliedSecrets } from '../../integrations/notifications/channel-config.js';
import { sendNotification } from '../../integrations/notifications/senders.js';
import type { Slipway } from '../../slipway.js';
import { isId, principalOf, visibleProject, writerOf } from '../auth.js';
import type { Principal } from '../principals.js';
import { forbidden, notFoundHttp } from '../errors.js';
import { notificationChannelsApi as api } from '../contract/notification-channels.js';
import { route } from '../contract/endpoint.js';
import { presentNotificationChannel, presentNotificationDelivery } from '../notification-presenters.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';

/** A scoped key sees (and may change) only channels limited to projects it sees; null (everything) is for all-project keys. */
const canSeeChannel = (principal: Principal, projectIds: readonly string[] | null) =>
  principal.projectIds === null || (projectIds !== null && projectIds.every((p) => principal.projectIds!.includes(p)));

async function visibleChannel(app: Slipway, principal: Principal, id: string): Promise<NotificationChannelRow> {
  const row = isId(id) ? await findNotificationChannel(app.db, id) : null;
  if (!row || !canSeeChannel(principal, row.project_ids)) throw notFoundHttp('notification channel');
  return row;
}

/** Every project named exists and the key sees it; a scoped key may not ask for every project. */
async function checkedProjectIds(app: Slipway, principal: Principal, projectIds: string[] | null): Promise<string[] | null> {
  if (projectIds === null) {
    if (principal.projectIds !== null) throw forbidden('a channel for every project needs an all-project API key: name the projects');
    return null;
  }
  const unique = [...new Set(projectIds)];
  for (const id of unique) await visibleProject(app.db, principal, { id });
  return unique;
}

/** The full configuration checked for its type, and its destination against the outbound policy. */
async function checkedConfig(app: Slipway, type: ChannelType, config: unknown): Promise<Record<string, unknown>> {
  const parsed = parseInput(z.object({ config: channelConfigSchemas[type] }), { config }).config as Record<string, unknown>;
  const { field, host, port } = destinationOfConfig(type, parsed);
  await app.outbound.vet(host, port, field);
  return parsed;
}

async function answerChannel(app: Slipway, id: string) {
  return presentNotificationChannel((await findNotificationChannel(app.db, id))!);
}

export function notificationChannelRoutes(router: Router, app: Slipway) {
  route(router, api.list, async (ctx) => {
    const principal = principalOf(ctx);
    const rows = (await listNotificationChannels(app.db)).filter((r) => canSeeChannel(principal, r.project_ids));
    ctx.body = { channels: rows.map(presentNotificationChannel) };
  });

  route(router, api.create, async (ctx) => {
    const principal = writerOf(ctx);
    const body = parseInput(api.create.body, ctx.request.body);
    const projectIds = await checkedProjectIds(app, principal, body.projectIds === undefined ? (principal.projectIds === null ? null : [...principal.projectIds]) : body.projectIds);
    const config = await checkedConfig(app, body.type, body.config);
    let secret: string | undefined;
    if (body.type === 'webhook') config.secret = secret = typeof config.secret === 'string' ? config.secret : randomBytes(32).toString('hex');
    const { visible, secrets } = splitConfig(body.type, config);
    const events = body.events === undefined ? DEFAULT_NOTIFICATION_EVENTS : [...new Set(body.events)];
    const { id, position } = await createNotificationChannel(requestContext(app, ctx, principal), { name: body.name, type: body.type, config: visible, secrets, events, projectIds });
    await app.settle(position);
    ctx.body = { channel: await answerChannel(app, id), ...(secret ? { secret } : {}) };
  });

  route(router, api.get, async (ctx) => {
    ctx.body = { channel: presentNotificationChannel(await visibleChannel(app, principalOf(ctx), ctx.params.channelId!)) };
  });

  route(router, api.update, async (ctx) => {
    const principal = writerOf(ctx);
    const row = await visibleChannel(app, principal, ctx.params.channelId!);
    const body = parseInput(api.update.body, ctx.request.body);
    const cmd = requestContext(app, ctx, principal);
    const projectIds = body.projectIds === undefined ? undefined : await checkedProjectIds(app, principal, body.projectIds);
    let config: { visible: Record<string, unknown>; supplied: Record<string, unknown>; merged: Record<string, unknown> } | undefined;
    let secret: string | undefined;
    if (body.config !== undefined) {
      const stored = (await channelSecrets(cmd, row.id)) ?? {};
      const given = body.config as Record<string, unknown>;
      const supplied = suppliedSecrets(row.type, given, stored);
      const visibleGiven = Object.fromEntries(Object.entries(given).filter(([k]) => !SECRET_FIELDS[row.type].includes(k)));
      const moved = destinationMoved(row.type, row.config, { ...row.config, ...visibleGiven }, Object.keys(supplied));
      // A new destination gets no secret given for the old one; a webhook gets a new signing secret, shown once.
      const kept = moved ? supplied : { ...stored, ...supplied };
      if (row.type === 'webhook' && moved && supplied.secret === undefined) kept.secret = supplied.secret = secret = randomBytes(32).toString('hex');
      const checked = await checkedConfig(app, row.type, { ...row.config, ...visibleGiven, ...kept });
      const split = splitConfig(row.type, checked);
      config = { visible: split.visible, supplied: Object.fromEntries(Object.entries(split.secrets).filter(([k]) => k in supplied)), merged: split.secrets };
    }
    const { position } = await updateNotificationChannel(cmd, row.id, {
      name: body.name,
      events: body.events === undefined ? undefined : [...new Set(body.events)],
      projectIds,
      config,
    });
    await app.settle(position);
    ctx.body = { channel: await answerChannel(app, row.id), ...(secret ? { secret } : {}) };
  });

  route(router, api.delete, async (ctx) => {
    const principal = writerOf(ctx);
    const row = await visibleChannel(app, principal, ctx.params.channelId!);
    const { position } = await deleteNotificationChannel(requestContext(app, ctx, principal), row.id);
    await app.settle(position);
    app.notifier?.kick();
    ctx.body = { ok: true };
  });

  route(router, api.test, async (ctx: Context) => {
    const principal = writerOf(ctx);
    const row = await visibleChannel(app, principal, ctx.params.channelId!);
    const body = parseInput(api.test.body, ctx.request.body ?? {}) ?? {};
    const cmd = requestContext(app, ctx, principal);
    const channel = await openNotificationChannel(cmd, row.id);
    if (!channel) throw notFoundHttp('notification channel');
    const id = randomUUID();
    const payload = {
      id,
      event: body.event ?? row.events[0] ?? 'deployment.failed',
      occurredAt: new Date().toISOString(),
      project: null,
      service: null,
      reason: 'a test notification from Slipway',
      links: {},
    };
    await app.settle((await queueNotification(cmd, id, row.id, payload, true)).position);
    const result = await sendNotification(app.outbound, channel, payload);
    const outcome = result.ok ? { delivered: true as const, status: result.status } : { delivered: false as const, status: result.status, error: result.error, retryAt: null };
    await app.settle((await recordNotificationAttempt(cmd, id, outcome)).position);
    const delivery = (await listNotificationsOf(app.db, row.id)).find((d) => d.id === id)!;
    ctx.body = { delivery: presentNotificationDelivery(delivery) };
  });

  route(router, api.deliveries, async (ctx) => {
    const row = await visibleChannel(app, principalOf(ctx), ctx.params.channelId!);
    ctx.body = { deliveries: (await listNotificationsOf(app.db, row.id)).map(presentNotificationDelivery) };
  });
}
