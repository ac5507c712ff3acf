import type { Config } from '../config.js';
import type { SqlExecutor } from '../db/sql-client.js';
import { effectiveSettings, type EffectiveSettings } from '../installation-settings.js';
import { detectPublicIp } from '../network.js';
import { createDestinationPolicy, type DestinationPolicy } from '../outbound/destination-policy.js';

export interface SettingsInForce {
  /** The general settings in force: the API's, else the environment's. */
  settings(): Promise<EffectiveSettings>;
  /** Where connections made on a key's behalf may go, by the settings in force at each connection. */
  outbound: DestinationPolicy;
}

export function settingsInForce(config: Config, db: SqlExecutor): SettingsInForce {
  const defaults = { ...config.general, publicIp: config.general.publicIp ?? detectPublicIp() };
  const settings = () => effectiveSettings(db, defaults);
  const outbound = createDestinationPolicy({
    async rules() {
      const { allowedDestinations, denyPrivateDestinations } = await settings();
      return { allowed: allowedDestinations, denyPrivate: denyPrivateDestinations };
    },
  });
  return { settings, outbound };
}
