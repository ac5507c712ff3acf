import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { decideCreate, decideDelete, decideUpdate, notificationChannel, type ChannelChange } from './aggregate.js';
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
  const secrets = await ctx.keyring.encrypt(keyOf(id), JSON.stringify(channel.secrets));
  const { position } = await execute(ctx, notificationChannel, id, (s) => decideCreate(s, { ...channel, secrets }));
  return { id, position };
}

export async function updateNotificationChannel(ctx: CommandContext, id: string, change: Omit<ChannelChange, 'secrets'> & { secrets?: Record<string, unknown> }) {
  const secrets = change.secrets === undefined ? undefined : await ctx.keyring.encrypt(keyOf(id), JSON.stringify(change.secrets));
  return execute(ctx, notificationChannel, id, (s) => decideUpdate(s, { ...change, secrets }));
}

/** The channel's data key goes with it: its sealed secrets are unreadable from then on. */
export async function deleteNotificationChannel(ctx: CommandContext, id: string) {
  const executed = await execute(ctx, notificationChannel, id, decideDelete);
  await ctx.keyring.shred(keyOf(id));
  return executed;
}

/** A live channel with its secrets opened; null when it is gone (or its key was shredded). */
export async function openNotificationChannel(ctx: CommandContext, id: string) {
  const { state } = await loadAggregate(ctx, notificationChannel, id);
  if (state.status !== 'active' || !state.channel) return null;
  const opened = await ctx.keyring.decrypt(state.channel.secrets);
  if (opened === null) return null;
  return { id, ...state.channel, secrets: JSON.parse(opened) as Record<string, unknown> };
}
export type OpenedChannel = NonNullable<Awaited<ReturnType<typeof openNotificationChannel>>>;

/** Secret fields not given in a PATCH keep their sealed values: the current ones, opened, to merge with. */
export async function channelSecrets(ctx: CommandContext, id: string): Promise<Record<string, unknown> | null> {
  return (await openNotificationChannel(ctx, id))?.secrets ?? null;
}
