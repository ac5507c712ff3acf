import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { notificationChannel, type SealedSecrets } from './aggregate.js';
import type { ChannelType, NotificationEventName } from './events.js';

const keyOf = (id: string) => `notificationchannel-${id}`;

export interface NewChannel {
  name: string;
  type: ChannelType;
  config: Record<string, unknown>;
  /** In clear: sealed here, before they reach the log. */
  secrets: Record<string, unknown>;
  events: NotificationEventName[];
  projectIds: string[] | null;
}

export async function createNotificationChannel(ctx: CommandContext, channel: NewChannel) {
  const id = newId(ctx, 'notification-channel');
  const { sealed, fields } = await seal(ctx, id, channel.secrets);
  const { position } = await execute(ctx, notificationChannel, id, (s) => notificationChannel.decide.create(s, { ...channel, secrets: sealed, secretFields: fields }));
  return { id, position };
}

/** Empty values are no secret: only the fields with a value are sealed and named. */
async function seal(ctx: CommandContext, id: string, secrets: Record<string, unknown>): Promise<SealedSecrets> {
  const present = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  return { sealed: await ctx.keyring.encrypt(keyOf(id), JSON.stringify(present)), fields: Object.keys(present).sort() };
}

export interface ChannelUpdate {
  name?: string;
  events?: NotificationEventName[];
  projectIds?: string[] | null;
  /** In clear: `supplied` the secret fields this request gave, `merged` the stored ones with those over them. */
  config?: { visible: Record<string, unknown>; supplied: Record<string, unknown>; merged: Record<string, unknown> };
}

/** Which of the two sealings is kept (a change of destination keeps only what was supplied) is the aggregate's decision. */
export async function updateNotificationChannel(ctx: CommandContext, id: string, change: ChannelUpdate) {
  const config = change.config && { visible: change.config.visible, supplied: await seal(ctx, id, change.config.supplied), merged: await seal(ctx, id, change.config.merged) };
  return execute(ctx, notificationChannel, id, (s) => notificationChannel.decide.update(s, { ...change, config }));
}

/** The channel's data key goes with it: its sealed secrets are unreadable from then on. */
export async function deleteNotificationChannel(ctx: CommandContext, id: string) {
  const executed = await execute(ctx, notificationChannel, id, notificationChannel.decide.delete);
  await ctx.keyring.shred(keyOf(id));
  return executed;
}

/** A live channel with its secrets opened; null when it is gone (or its key was shredded). */
export async function openNotificationChannel(ctx: CommandContext, id: string) {
  const { state } = await loadAggregate(ctx, notificationChannel, id);
  if (state.status !== 'active' || !state.channel) return null;
  const opened = await ctx.keyring.decrypt(state.channel.secrets);
  if (opened === null) return null;
  const { legacyUrl, ...channel } = state.channel;
  const secrets = JSON.parse(opened) as Record<string, unknown>;
  return { id, ...channel, secrets: legacyUrl === undefined ? secrets : { ...secrets, url: legacyUrl } };
}
export type OpenedChannel = NonNullable<Awaited<ReturnType<typeof openNotificationChannel>>>;

/** The stored secrets, opened: a PATCH that keeps the destination merges the fields it gives over them. */
export async function channelSecrets(ctx: CommandContext, id: string): Promise<Record<string, unknown> | null> {
  return (await openNotificationChannel(ctx, id))?.secrets ?? null;
}
