import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { uuidFromName } from '../shared/ids.js';
import { notification, type AttemptOutcome } from './aggregate.js';
import type { NotificationPayload } from './events.js';

/** The same channel and cause give the same notification id: at least once, recorded once. */
export const notificationIdOf = (channelId: string, causeId: string) => uuidFromName(`notification|${channelId}|${causeId}`);

export async function queueNotification(ctx: CommandContext, id: string, channelId: string, payload: NotificationPayload, test = false) {
  return execute(ctx, notification, id, (s) => notification.decide.queue(s, { channelId, payload, test }));
}

export const recordNotificationAttempt = (ctx: CommandContext, id: string, outcome: AttemptOutcome) => execute(ctx, notification, id, (s) => notification.decide.attempt(s, outcome));

export const abandonNotification = (ctx: CommandContext, id: string, reason: string) => execute(ctx, notification, id, (s) => notification.decide.abandon(s, reason));

/** The notification as its stream has it: what the notifier decides an attempt on. */
export const loadNotification = async (ctx: CommandContext, id: string) => (await loadAggregate(ctx, notification, id)).state;
