import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { backup, decideDelete, decideDeleteWithService, decideFilesRemoved, decideStart, decideFail, decideRequest, decideRestored, decideRestoreFailed, decideSucceed } from './aggregate.js';
import type { BackupEvent } from './events.js';

type Requested = Extract<BackupEvent, { type: 'BackupRequested' }>['data'];

/** `id` may be given (a scheduled backup's id derives from its service and day, so it is requested once). */
export async function requestBackup(ctx: CommandContext, request: (id: string) => Requested, id = newId(ctx, 'backup')) {
  const { position } = await execute(ctx, backup, id, (s) => decideRequest(s, request(id)));
  return { id, position };
}

export const loadBackup = async (ctx: CommandContext, id: string) => (await loadAggregate(ctx, backup, id)).state;

/** What the backup runner records; each is a no-op once the backup has ended. */
export const backupSteps = {
  start: (ctx: CommandContext, id: string) => execute(ctx, backup, id, decideStart),
  succeed: (ctx: CommandContext, id: string, outcome: { sizeBytes: number; checksum: string }) => execute(ctx, backup, id, (s) => decideSucceed(s, outcome)),
  fail: (ctx: CommandContext, id: string, error: string) => execute(ctx, backup, id, (s) => decideFail(s, error)),
};

export const recordRestore = (ctx: CommandContext, id: string, into: { serviceId: string; projectId: string; engine: string }) =>
  execute(ctx, backup, id, (s) => decideRestored(s, into));

export const recordRestoreFailure = (ctx: CommandContext, id: string, into: { serviceId: string; projectId: string }, error: string) =>
  execute(ctx, backup, id, (s) => decideRestoreFailed(s, into, error));

export const deleteBackup = (ctx: CommandContext, id: string, reason: 'request' | 'retention' = 'request') =>
  execute(ctx, backup, id, (s) => decideDelete(s, reason));

/** After the deleted backup's file and object were removed; a no-op once recorded. */
export const recordFilesRemoved = (ctx: CommandContext, id: string) => execute(ctx, backup, id, decideFilesRemoved);

/** Deletes a backup of a deleted service (see decideDeleteWithService); a no-op once it is deleted. */
export const deleteWithService = (ctx: CommandContext, id: string) => execute(ctx, backup, id, decideDeleteWithService);
