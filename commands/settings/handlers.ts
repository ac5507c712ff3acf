import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { settings, type AiProviderConnection, type RemoteStorageSettings } from './aggregate.js';
import { SETTINGS_ID, type GeneralSettingsChange } from './events.js';

const SETTINGS_KEY = `settings-${SETTINGS_ID}`;
const seal = (ctx: CommandContext, secret: string) => ctx.keyring.encrypt(SETTINGS_KEY, secret);

/** `config.secretAccessKey` in clear: it is sealed here, before it reaches the log. */
export async function connectRemoteStorage(ctx: CommandContext, config: RemoteStorageSettings) {
  const sealed = { ...config, secretAccessKey: await seal(ctx, config.secretAccessKey) };
  return execute(ctx, settings, SETTINGS_ID, (s) => settings.decide.connect(s, sealed));
}

export const disconnectRemoteStorage = (ctx: CommandContext) => execute(ctx, settings, SETTINGS_ID, settings.decide.disconnect);

/** The connected remote storage with its secret opened, or null. */
export async function remoteStorageSettings(ctx: CommandContext): Promise<RemoteStorageSettings | null> {
  const { remoteStorage } = (await loadAggregate(ctx, settings, SETTINGS_ID)).state;
  if (!remoteStorage) return null;
  const secret = await ctx.keyring.decrypt(remoteStorage.secretAccessKey);
  return secret === null ? null : { ...remoteStorage, secretAccessKey: secret };
}

export const changeGeneralSettings = (ctx: CommandContext, change: GeneralSettingsChange) =>
  execute(ctx, settings, SETTINGS_ID, (s) => settings.decide.changeGeneral(s, change));

/** The route verified `credentials` with the provider; they are sealed here, before they reach the log. */
export async function connectDnsProvider(
  ctx: CommandContext,
  connection: { providerId: string; credentials: Record<string, string>; visible: Record<string, string>; zones: string[] },
) {
  const sealed = { ...connection, credentials: await seal(ctx, JSON.stringify(connection.credentials)) };
  return execute(ctx, settings, SETTINGS_ID, (s) => settings.decide.connectDnsProvider(s, sealed));
}

export const disconnectDnsProvider = (ctx: CommandContext, providerId: string) =>
  execute(ctx, settings, SETTINGS_ID, (s) => settings.decide.disconnectDnsProvider(s, providerId));

/** A connected DNS provider's credentials, opened; null when it is not connected (or its key was lost). */
export async function dnsProviderCredentials(ctx: CommandContext, providerId: string): Promise<Record<string, string> | null> {
  const connection = (await loadAggregate(ctx, settings, SETTINGS_ID)).state.dnsProviders[providerId];
  if (!connection) return null;
  const opened = await ctx.keyring.decrypt(connection.credentials);
  return opened === null ? null : (JSON.parse(opened) as Record<string, string>);
}

export async function connectAiProvider(ctx: CommandContext, connection: AiProviderConnection) {
  const sealed = { ...connection, apiKey: connection.apiKey === null ? null : await seal(ctx, connection.apiKey) };
  return execute(ctx, settings, SETTINGS_ID, (s) => settings.decide.connectAiProvider(s, sealed));
}

export const disconnectAiProvider = (ctx: CommandContext, providerId: string) =>
  execute(ctx, settings, SETTINGS_ID, (s) => settings.decide.disconnectAiProvider(s, providerId));

/** A connected AI provider with its key opened, or null. */
export async function aiProviderConnection(ctx: CommandContext, providerId: string): Promise<AiProviderConnection | null> {
  const connection = (await loadAggregate(ctx, settings, SETTINGS_ID)).state.aiProviders[providerId];
  if (!connection) return null;
  if (connection.apiKey === null) return connection;
  const apiKey = await ctx.keyring.decrypt(connection.apiKey);
  return apiKey === null ? null : { ...connection, apiKey };
}
