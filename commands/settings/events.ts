import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { resourceSettings } from '../service/resources.js';
import { IMAGE_SETTING_NAMES, type ImageSettingName } from '../../src/installation-images.js';
import { mailSettingsEvents } from './mail.js';

/** A general setting: absent = unchanged, null = back to the environment's default. */
const setting = <T extends z.ZodType>(value: T) => value.nullable().optional();

/**
 * The installation's settings (`settings-installation`). Every secret (storage keys, provider tokens,
 * AI keys) is stored sealed under the settings' own data key; the read side only learns that one is set.
 */
export const settingsEvents = {
  RemoteStorageConnected: z.object({
    endpoint: z.string(),
    region: z.string(),
    bucket: z.string(),
    accessKeyId: z.string(),
    secretAccessKey: z.string(),
    prefix: z.string(),
    forcePathStyle: z.boolean(),
  }),
  RemoteStorageDisconnected: z.object({}),
  GeneralSettingsChanged: z.object({
    rootDomain: setting(z.string()),
    publicIp: setting(z.string()),
    acmeEmail: setting(z.string()),
    acmeDirectoryUrl: setting(z.string()),
    httpsEnabled: setting(z.boolean()),
    /** Canonical entries (`127.0.0.1:3000`, `10.0.0.0/8`, `[::1]:8080`) the outbound policy lets through. */
    allowedDestinations: setting(z.array(z.string())),
    denyPrivateDestinations: setting(z.boolean()),
    apiDomain: setting(z.string()),
    /** A dashboard session ends after this long without a request. */
    sessionIdleMinutes: setting(z.number().int()),
    /** A dashboard session ends this long after its sign-in, however active (absent in events before it existed). */
    sessionMaxHours: setting(z.number().int()),
    /** Every person must turn on two factors before anything else (absent in events before it existed). */
    requireTwoFactor: setting(z.boolean()),
    /** Limits of every service that sets none of its own (per key; see commands/service/resources.ts). */
    defaultResources: setting(resourceSettings),
    /** The images builds and database deployments use (`packNodeImage`, `dbImagePostgres` …). */
    ...(Object.fromEntries(IMAGE_SETTING_NAMES.map((name) => [name, setting(z.string())])) as Record<ImageSettingName, ReturnType<typeof setting<z.ZodString>>>),
  }),
  DnsProviderConnected: z.object({
    providerId: z.string(),
    /** The credentials as JSON, sealed. */
    credentials: z.string(),
    /** What may be shown of them (PowerDNS' address and server id); tokens never. */
    visible: z.record(z.string(), z.string()),
    zones: z.array(z.string()),
  }),
  DnsProviderDisconnected: z.object({ providerId: z.string() }),
  AiProviderConnected: z.object({
    providerId: z.string(),
    baseUrl: z.string().nullable(),
    /** Sealed; null when the provider needs none (a local Ollama). */
    apiKey: z.string().nullable(),
    defaultModel: z.string().nullable(),
    models: z.array(z.string()),
  }),
  AiProviderDisconnected: z.object({ providerId: z.string() }),
  ...mailSettingsEvents,
};
export type SettingsEvent = EventsOf<typeof settingsEvents>;
export const parseSettingsEvent = eventParser(settingsEvents);
export const SETTINGS_ID = 'installation';
export type GeneralSettingsChange = Extract<SettingsEvent, { type: 'GeneralSettingsChanged' }>['data'];
