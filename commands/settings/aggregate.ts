import type { Aggregate } from '../shared/aggregate.js';
import { notFound } from '../shared/domain-error.js';
import { parseSettingsEvent, type SettingsEvent } from './events.js';

export type RemoteStorageSettings = Extract<SettingsEvent, { type: 'RemoteStorageConnected' }>['data'];

export interface SettingsState {
  remoteStorage: RemoteStorageSettings | null;
}

export const settings: Aggregate<SettingsState, SettingsEvent> = {
  category: 'settings',
  initial: { remoteStorage: null },
  evolve(state, event) {
    switch (event.type) {
      case 'RemoteStorageConnected':
        return { ...state, remoteStorage: event.data };
      case 'RemoteStorageDisconnected':
        return { ...state, remoteStorage: null };
      default:
        return state;
    }
  },
  parse: parseSettingsEvent,
};

/** The route probes the storage before it decides: only a configuration that worked is recorded. */
export const decideConnect = (_state: SettingsState, connected: RemoteStorageSettings): SettingsEvent[] => [{ type: 'RemoteStorageConnected', data: connected }];

export function decideDisconnect(state: SettingsState): SettingsEvent[] {
  if (!state.remoteStorage) throw notFound('remote storage');
  return [{ type: 'RemoteStorageDisconnected', data: {} }];
}
