import type { Aggregate } from '../shared/aggregate.js';
import { conflict, notFound } from '../shared/domain-error.js';
import { parseNotificationChannelEvent, type NotificationChannelEvent } from './events.js';

type Created = Extract<NotificationChannelEvent, { type: 'NotificationChannelCreated' }>['data'];
export type ChannelChange = Extract<NotificationChannelEvent, { type: 'NotificationChannelUpdated' }>['data'];

export interface ChannelState {
  status: 'none' | 'active' | 'deleted';
  channel: Created | null;
}

export const notificationChannel: Aggregate<ChannelState, NotificationChannelEvent> = {
  category: 'notificationchannel',
  initial: { status: 'none', channel: null },
  evolve(state, event) {
    switch (event.type) {
      case 'NotificationChannelCreated':
        return { status: 'active', channel: event.data };
      case 'NotificationChannelUpdated': {
        const changed = Object.fromEntries(Object.entries(event.data).filter(([, v]) => v !== undefined));
        return state.channel ? { ...state, channel: { ...state.channel, ...changed } } : state;
      }
      case 'NotificationChannelDeleted':
        return { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  parse: parseNotificationChannelEvent,
};

export function decideCreate(state: ChannelState, channel: Created): NotificationChannelEvent[] {
  if (state.status !== 'none') throw conflict('notification channel already exists');
  return [{ type: 'NotificationChannelCreated', data: channel }];
}

export function decideUpdate(state: ChannelState, change: ChannelChange): NotificationChannelEvent[] {
  if (state.status !== 'active') throw notFound('notification channel');
  const changed = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  return Object.keys(changed).length === 0 ? [] : [{ type: 'NotificationChannelUpdated', data: changed }];
}

export function decideDelete(state: ChannelState): NotificationChannelEvent[] {
  if (state.status !== 'active') throw notFound('notification channel');
  return [{ type: 'NotificationChannelDeleted', data: {} }];
}
