import { isDeepStrictEqual } from 'node:util';
import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { notFound } from '../shared/domain-error.js';
import { IMAGE_SETTING_NAMES, type ImageSettingName } from '../../src/installation-images.js';
import { decideChangeMail, decideRemoveMail, type MailSettings } from './mail.js';
import { parseSettingsEvent, type GeneralSettingsChange, type SettingsEvent } from './events.js';

type DataOf<T extends SettingsEvent['type']> = Extract<SettingsEvent, { type: T }>['data'];
export type RemoteStorageSettings = DataOf<'RemoteStorageConnected'>;
export type DnsProviderConnection = DataOf<'DnsProviderConnected'>;
export type AiProviderConnection = DataOf<'AiProviderConnected'>;

/** Only what was set through the API; an absent key means the environment's default. */
export type GeneralSettings = { [K in keyof GeneralSettingsChange]-?: Exclude<GeneralSettingsChange[K], null | undefined> | null };

export interface SettingsState {
  remoteStorage: RemoteStorageSettings | null;
  general: GeneralSettings;
  dnsProviders: Readonly<Record<string, DnsProviderConnection>>;
  aiProviders: Readonly<Record<string, AiProviderConnection>>;
  /** The installation's own mail server (commands/settings/mail.ts); its password sealed. */
  mail: MailSettings | null;
}

const NO_GENERAL: GeneralSettings = {
  rootDomain: null,
  publicIp: null,
  acmeEmail: null,
  acmeDirectoryUrl: null,
  httpsEnabled: null,
  allowedDestinations: null,
  denyPrivateDestinations: null,
  apiDomain: null,
  sessionIdleMinutes: null,
  sessionMaxHours: null,
  requireTwoFactor: null,
  defaultResources: null,
  ...(Object.fromEntries(IMAGE_SETTING_NAMES.map((name) => [name, null])) as Record<ImageSettingName, null>),
};

const without = <T>(map: Readonly<Record<string, T>>, key: string) => Object.fromEntries(Object.entries(map).filter(([k]) => k !== key));

const evolution: Evolution<SettingsState, SettingsEvent> = {
  category: 'settings',
  initial: { remoteStorage: null, general: NO_GENERAL, dnsProviders: {}, aiProviders: {}, mail: null },
  evolve(state, event) {
    switch (event.type) {
      case 'RemoteStorageConnected':
        return { ...state, remoteStorage: event.data };
      case 'RemoteStorageDisconnected':
        return { ...state, remoteStorage: null };
      case 'GeneralSettingsChanged': {
        const changed = Object.fromEntries(Object.entries(event.data).filter(([, v]) => v !== undefined));
        return { ...state, general: { ...state.general, ...changed } };
      }
      case 'DnsProviderConnected':
        return { ...state, dnsProviders: { ...state.dnsProviders, [event.data.providerId]: event.data } };
      case 'DnsProviderDisconnected':
        return { ...state, dnsProviders: without(state.dnsProviders, event.data.providerId) };
      case 'AiProviderConnected':
        return { ...state, aiProviders: { ...state.aiProviders, [event.data.providerId]: event.data } };
      case 'AiProviderDisconnected':
        return { ...state, aiProviders: without(state.aiProviders, event.data.providerId) };
      // Mail settings
      case 'MailSettingsChanged':
        return { ...state, mail: event.data };
      case 'MailSettingsRemoved':
        return { ...state, mail: null };
      default:
        return state;
    }
  },
  parse: parseSettingsEvent,
};

/** The route probes the storage before it decides: only a configuration that worked is recorded. */
const decideConnect = (_state: SettingsState, connected: RemoteStorageSettings): SettingsEvent[] => [{ type: 'RemoteStorageConnected', data: connected }];

function decideDisconnect(state: SettingsState): SettingsEvent[] {
  if (!state.remoteStorage) throw notFound('remote storage');
  return [{ type: 'RemoteStorageDisconnected', data: {} }];
}

/** Only the settings that really change are recorded; a PATCH that changes nothing appends nothing. */
function decideChangeGeneral(state: SettingsState, change: GeneralSettingsChange): SettingsEvent[] {
  const changed = Object.fromEntries(
    Object.entries(change).filter(([key, value]) => value !== undefined && !isDeepStrictEqual(state.general[key as keyof GeneralSettings], value)),
  ) as GeneralSettingsChange;
  return Object.keys(changed).length === 0 ? [] : [{ type: 'GeneralSettingsChanged', data: changed }];
}

const decideConnectDnsProvider = (_state: SettingsState, connection: DnsProviderConnection): SettingsEvent[] => [
  { type: 'DnsProviderConnected', data: connection },
];

function decideDisconnectDnsProvider(state: SettingsState, providerId: string): SettingsEvent[] {
  if (!state.dnsProviders[providerId]) throw notFound(`DNS provider ${providerId}`);
  return [{ type: 'DnsProviderDisconnected', data: { providerId } }];
}

const decideConnectAiProvider = (_state: SettingsState, connection: AiProviderConnection): SettingsEvent[] => [
  { type: 'AiProviderConnected', data: connection },
];

function decideDisconnectAiProvider(state: SettingsState, providerId: string): SettingsEvent[] {
  if (!state.aiProviders[providerId]) throw notFound(`AI provider ${providerId}`);
  return [{ type: 'AiProviderDisconnected', data: { providerId } }];
}

/** The settings aggregate and its command vocabulary. */
export const settings = defineAggregate(evolution, {
  connect: decideConnect,
  disconnect: decideDisconnect,
  changeGeneral: decideChangeGeneral,
  connectDnsProvider: decideConnectDnsProvider,
  disconnectDnsProvider: decideDisconnectDnsProvider,
  connectAiProvider: decideConnectAiProvider,
  disconnectAiProvider: decideDisconnectAiProvider,
  // Mail settings
  changeMail: decideChangeMail,
  removeMail: decideRemoveMail,
});
