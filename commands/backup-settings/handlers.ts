import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { backupSettings, type BackupSettings } from './aggregate.js';

export async function changeBackupSettings(ctx: CommandContext, owner: { serviceId: string; projectId: string }, next: BackupSettings) {
  const { revision } = await loadAggregate(ctx, backupSettings, owner.serviceId);
  return execute(ctx, backupSettings, owner.serviceId, (s) => backupSettings.decide.change(s, revision >= 0, next, owner));
}
