import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { SETTINGS_ID } from './events.js';
import { oidcSettings } from './oidc-aggregate.js';
import { OIDC_SETTINGS_ID, type OidcConfiguration } from './oidc-events.js';

/** Sealed under the settings' data key, as every other settings secret. */
const SETTINGS_KEY = `settings-${SETTINGS_ID}`;

/** `configuration.clientSecret` in clear: it is sealed here, before it reaches the log. */
export async function configureOidc(ctx: CommandContext, configuration: OidcConfiguration) {
  const sealed = { ...configuration, clientSecret: await ctx.keyring.encrypt(SETTINGS_KEY, configuration.clientSecret) };
  return execute(ctx, oidcSettings, OIDC_SETTINGS_ID, (s) => oidcSettings.decide.configure(s, sealed));
}

export const removeOidc = (ctx: CommandContext) => execute(ctx, oidcSettings, OIDC_SETTINGS_ID, oidcSettings.decide.remove);

/** The configuration in force with its secret opened; null when there is none (or its key was lost). */
export async function oidcConfiguration(ctx: CommandContext): Promise<OidcConfiguration | null> {
  const { configuration } = (await loadAggregate(ctx, oidcSettings, OIDC_SETTINGS_ID)).state;
  if (!configuration) return null;
  const clientSecret = await ctx.keyring.decrypt(configuration.clientSecret);
  return clientSecret === null ? null : { ...configuration, clientSecret };
}
