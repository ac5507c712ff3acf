import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { parseNotificationEvent, type NotificationEvent } from './events.js';

type Queued = Extract<NotificationEvent, { type: 'NotificationQueued' }>['data'];

export interface NotificationState {
  status: 'none' | 'pending' | 'delivered' | 'abandoned';
  queued: Queued | null;
  attempts: number;
  /** When the next attempt is due, as the last failed attempt set it; null before any attempt. */
  retryAt: string | null;
}

const evolution: Evolution<NotificationState, NotificationEvent> = {
  category: 'notification',
  initial: { status: 'none', queued: null, attempts: 0, retryAt: null },
  evolve(state, event) {
    switch (event.type) {
      case 'NotificationQueued':
        return { status: 'pending', queued: event.data, attempts: 0, retryAt: null };
      case 'NotificationAttempted':
        return { ...state, attempts: event.data.attempt, retryAt: event.data.retryAt };
      case 'NotificationDelivered':
        return { ...state, status: 'delivered', attempts: event.data.attempt };
      case 'NotificationAbandoned':
        return { ...state, status: 'abandoned' };
      default:
        return state;
    }
  },
  parse: parseNotificationEvent,
};

/**
 * Whether an attempt is to be made now, as the notification's own stream says: the read model that lists
 * candidates may lag behind an attempt already recorded (or a delivery), and an outside effect is not repeated on
 * its word. Test sends are the route's own. Pure.
 */
export const attemptDue = (state: NotificationState, now: Date): boolean =>
  state.status === 'pending' && state.queued !== null && !state.queued.test && (state.retryAt === null || Date.parse(state.retryAt) <= now.getTime());

/** Queued once: the same (channel, event) queued again, after a restart replays the log, records nothing. */
const decideQueue = (state: NotificationState, queued: Queued): NotificationEvent[] =>
  state.status === 'none' ? [{ type: 'NotificationQueued', data: queued }] : [];

export type AttemptOutcome =
  | { delivered: true; status: number | null }
  | { delivered: false; status: number | null; error: string; retryAt: string | null };

/** An attempt of a delivery that has ended already (another run finished it) records nothing. */
function decideAttempt(state: NotificationState, outcome: AttemptOutcome): NotificationEvent[] {
  if (state.status !== 'pending' || !state.queued) return [];
  const { channelId } = state.queued;
  const attempt = state.attempts + 1;
  if (outcome.delivered) return [{ type: 'NotificationDelivered', data: { channelId, attempt, status: outcome.status } }];
  const attempted: NotificationEvent = { type: 'NotificationAttempted', data: { channelId, attempt, status: outcome.status, error: outcome.error, retryAt: outcome.retryAt } };
  if (outcome.retryAt !== null) return [attempted];
  const why = outcome.status !== null && outcome.status >= 400 && outcome.status < 500 ? `the receiver refused it (${outcome.status})` : 'it kept failing for 24 hours';
  return [attempted, { type: 'NotificationAbandoned', data: { channelId, reason: why } }];
}

const decideAbandon = (state: NotificationState, reason: string): NotificationEvent[] =>
  state.status === 'pending' && state.queued ? [{ type: 'NotificationAbandoned', data: { channelId: state.queued.channelId, reason } }] : [];

/** The notification aggregate and its command vocabulary. */
export const notification = defineAggregate(evolution, {
  queue: decideQueue,
  attempt: decideAttempt,
  abandon: decideAbandon,
});
