import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { decideConnect, decideDisconnect, settings, type RemoteStorageSettings } from './aggregate.js';
import { SETTINGS_ID } from './events.js';

/** `config.secretAccessKey` in clear: it is sealed here, before it reaches the log. */
export async function connectRemoteStorage(ctx: CommandContext, config: RemoteStorageSettings) {
  const sealed = { ...config, secretAccessKey: await ctx.keyring.encrypt(`settings-${SETTINGS_ID}`, config.secretAccessKey) };
  return execute(ctx, settings, SETTINGS_ID, (s) => decideConnect(s, sealed));
}

export const disconnectRemoteStorage = (ctx: CommandContext) => execute(ctx, settings, SETTINGS_ID, decideDisconnect);

/** The connected remote storage with its secret opened, or null. */
export async function remoteStorageSettings(ctx: CommandContext): Promise<RemoteStorageSettings | null> {
  const { remoteStorage } = (await loadAggregate(ctx, settings, SETTINGS_ID)).state;
  if (!remoteStorage) return null;
  const secret = await ctx.keyring.decrypt(remoteStorage.secretAccessKey);
  return secret === null ? null : { ...remoteStorage, secretAccessKey: secret };
}
