import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, invalid, notFound } from '../shared/domain-error.js';
import { destinationMoved } from './destination.js';
import { parseNotificationChannelEvent, type NotificationChannelEvent } from './events.js';

type Created = Extract<NotificationChannelEvent, { type: 'NotificationChannelCreated' }>['data'];
type Updated = Extract<NotificationChannelEvent, { type: 'NotificationChannelUpdated' }>['data'];

export interface ChannelState {
  status: 'none' | 'active' | 'deleted';
  channel: Created | null;
}

/** Secret fields sealed under the channel's data key, with their names. */
export interface SealedSecrets {
  sealed: string;
  fields: string[];
}

/**
 * A change as a command asks for it. A new config comes with two sealings of its secrets: `supplied`, only those
 * the request gave, and `merged`, the stored ones with the supplied ones over them. Which one is kept is decided
 * here, for every caller: secrets given for one destination never follow the channel to another.
 */
export interface ChannelChange {
  name?: string;
  events?: Created['events'];
  projectIds?: string[] | null;
  config?: { visible: Record<string, unknown>; supplied: SealedSecrets; merged: SealedSecrets };
}

const evolution: Evolution<ChannelState, NotificationChannelEvent> = {
  category: 'notificationchannel',
  initial: { status: 'none', channel: null },
  evolve(state, event) {
    switch (event.type) {
      case 'NotificationChannelCreated':
        return { status: 'active', channel: event.data };
      case 'NotificationChannelUpdated': {
        if (!state.channel) return state;
        const changed = Object.fromEntries(Object.entries(event.data).filter(([, v]) => v !== undefined));
        const channel = { ...state.channel, ...changed };
        // New secrets replace all the old ones, a URL kept in clear by an old event included.
        if (event.data.secrets !== undefined && event.data.legacyUrl === undefined) delete channel.legacyUrl;
        return { ...state, channel };
      }
      case 'NotificationChannelDeleted':
        return { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  parse: parseNotificationChannelEvent,
};

/** SMTP credentials never cross the network in clear: a password needs implicit TLS or required STARTTLS. */
function checkSecretsTravelSafely(type: Created['type'], config: Record<string, unknown>, secretFields: readonly string[]) {
  if (type === 'email' && secretFields.includes('password') && config.secure !== true && config.requireTLS !== true) {
    throw invalid('config.password', 'an SMTP password is only sent over TLS: set secure (implicit TLS) or requireTLS (STARTTLS required)');
  }
}

function decideCreate(state: ChannelState, channel: Created): NotificationChannelEvent[] {
  if (state.status !== 'none') throw conflict('notification channel already exists');
  checkSecretsTravelSafely(channel.type, channel.config, channel.secretFields);
  return [{ type: 'NotificationChannelCreated', data: channel }];
}

function decideUpdate(state: ChannelState, change: ChannelChange): NotificationChannelEvent[] {
  if (state.status !== 'active' || !state.channel) throw notFound('notification channel');
  const { config, ...rest } = change;
  const data: Updated = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (config) {
    const moved = destinationMoved(state.channel.type, state.channel.config, config.visible, config.supplied.fields);
    const kept = moved ? config.supplied : config.merged;
    checkSecretsTravelSafely(state.channel.type, config.visible, kept.fields);
    Object.assign(data, { config: config.visible, secrets: kept.sealed, secretFields: kept.fields });
  }
  return Object.keys(data).length === 0 ? [] : [{ type: 'NotificationChannelUpdated', data }];
}

function decideDelete(state: ChannelState): NotificationChannelEvent[] {
  if (state.status !== 'active') throw notFound('notification channel');
  return [{ type: 'NotificationChannelDeleted', data: {} }];
}

/** The notificationChannel aggregate and its command vocabulary. */
export const notificationChannel = defineAggregate(evolution, {
  create: decideCreate,
  update: decideUpdate,
  delete: decideDelete,
});
