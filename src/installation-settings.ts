import { findGeneralSettings, GENERAL_COLUMNS, type GeneralSettingsRow } from '../projections/settings-queries.js';
import type { ImageSettings } from './installation-images.js';
import type { SqlExecutor } from './db/sql-client.js';
import type { ResourceSettings } from '../commands/service/resources.js';

export interface GeneralSettingsValues extends ImageSettings {
  rootDomain: string | null;
  publicIp: string;
  acmeEmail: string | null;
  acmeDirectoryUrl: string;
  httpsEnabled: boolean;
  /** Destinations the outbound policy lets through although it would refuse them. */
  allowedDestinations: string[];
  /** Private ranges (10/8, 172.16/12, 192.168/16, fc00::/7…) refused too. */
  denyPrivateDestinations: boolean;
  /** The API's own domain, served by Caddy with HTTPS; null: none. */
  apiDomain: string | null;
  /** Limits of services that set none of their own, per key. */
  defaultResources: ResourceSettings;
  /** A dashboard session ends after this long without a request. */
  sessionIdleMinutes: number;
  /** A dashboard session ends this long after its sign-in, however active. */
  sessionMaxHours: number;
  /** Every person must turn on two factors before anything else. */
  requireTwoFactor: boolean;
}

export type GeneralSettingName = keyof GeneralSettingsValues;

export interface EffectiveSettings extends GeneralSettingsValues {
  /** Where each value came from: set through the API, or the environment's default. */
  source: Record<GeneralSettingName, 'settings' | 'environment'>;
}

const COLUMNS: Record<GeneralSettingName, keyof GeneralSettingsRow> = GENERAL_COLUMNS;

/** The general settings in force: what `PATCH /api/settings` set wins over the environment's default. */
export async function effectiveSettings(db: SqlExecutor, defaults: GeneralSettingsValues): Promise<EffectiveSettings> {
  const row = await findGeneralSettings(db);
  const values = { ...defaults } as Record<GeneralSettingName, unknown>;
  const source = {} as EffectiveSettings['source'];
  for (const name of Object.keys(COLUMNS) as GeneralSettingName[]) {
    const set = row?.[COLUMNS[name]] ?? null;
    if (set !== null) values[name] = set;
    source[name] = set === null ? 'environment' : 'settings';
  }
  return { ...(values as unknown as GeneralSettingsValues), source };
}

/** Whether Caddy is asked for certificates: HTTPS on, and a proxy Slipway drives. */
export const issuesCertificates = (app: { config: { proxy: { mode: 'caddy' | 'off' } } }, settings: GeneralSettingsValues) =>
  settings.httpsEnabled && app.config.proxy.mode === 'caddy';
