import { reservation, reservationId } from '../reservation/aggregate.js';
import { release, reserve } from '../reservation/handlers.js';
import type { CommandContext } from '../shared/command-context.js';
import { conflict } from '../shared/domain-error.js';
import { execute, latest, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { backup } from './aggregate.js';
import type { BackupEvent } from './events.js';

type Requested = Extract<BackupEvent, { type: 'BackupRequested' }>['data'];

/** `id` may be given (a scheduled backup's id derives from its service and day, so it is requested once). */
export async function requestBackup(ctx: CommandContext, request: (id: string) => Requested, id = newId(ctx, 'backup')) {
  const { position } = await execute(ctx, backup, id, (s) => backup.decide.request(s, request(id)));
  return { id, position };
}

export const loadBackup = async (ctx: CommandContext, id: string) => (await loadAggregate(ctx, backup, id)).state;

/** What the backup runner records; each is a no-op once the backup has ended. */
export const backupSteps = {
  start: (ctx: CommandContext, id: string) => execute(ctx, backup, id, backup.decide.start),
  succeed: (ctx: CommandContext, id: string, outcome: { sizeBytes: number; checksum: string }) => execute(ctx, backup, id, (s) => backup.decide.succeed(s, outcome)),
  fail: (ctx: CommandContext, id: string, error: string) => execute(ctx, backup, id, (s) => backup.decide.fail(s, error)),
};

type RestoreInto = { serviceId: string; projectId: string };

/** Who holds a service's `database-restore` reservation while a backup is restored into it (the service, for retirement). */
export const restoreOwner = (serviceId: string, backupId: string) => `${serviceId}/backup-${backupId}`;
export const backupIdOfRestoreOwner = (owner: string) => owner.slice(owner.indexOf('/backup-') + '/backup-'.length);

/** The lock under which a service's restores and imports are started, so they never both run. */
export const dataLoadLockOf = (serviceId: string) => `imports-of-${serviceId}`;

/** The service's restore running now, as the log has it: the owner of its reservation, or null. */
export async function restoreRunningInto(ctx: CommandContext, serviceId: string): Promise<string | null> {
  return (await loadAggregate(ctx, reservation, reservationId('database-restore', serviceId))).state.owner;
}

/**
 * Starts a restore: one per service at a time (its reservation, which survives a restart until the backup
 * runner ends an interrupted restore) and never while an import into it runs. A second start is 409.
 */
export async function startRestore(
  ctx: CommandContext,
  guard: { unfinishedImportOf(serviceId: string): Promise<string | null> },
  id: string,
  into: RestoreInto & { engine: string },
) {
  const owner = restoreOwner(into.serviceId, id);
  const start = async () => {
    backup.decide.restoreStart((await loadAggregate(ctx, backup, id)).state, into);
    const running = await restoreRunningInto(ctx, into.serviceId);
    if (running !== null && running !== owner) throw conflict(`a restore of backup ${backupIdOfRestoreOwner(running)} into this service is running: wait for it to end`);
    const importing = await guard.unfinishedImportOf(into.serviceId);
    if (importing !== null) throw conflict(`import ${importing} into this service is still running: wait for it to end`);
    const reserved = await reserve(ctx, 'database-restore', into.serviceId, owner, 'the service\'s restore');
    const started = await execute(ctx, backup, id, (s) => backup.decide.restoreStart(s, into));
    return latest(reserved.position, started.position);
  };
  return ctx.locks ? ctx.locks.run(dataLoadLockOf(into.serviceId), start) : start();
}

/** Records how a restore ended and frees the service for the next one; a restore already ended is left as it is. */
export async function endRestore(ctx: CommandContext, id: string, into: RestoreInto, error: string | null) {
  const ended = await execute(ctx, backup, id, (s) => (error === null ? backup.decide.restored(s, into) : backup.decide.restoreFailed(s, into, error)));
  const released = await release(ctx, 'database-restore', into.serviceId, restoreOwner(into.serviceId, id));
  return { events: ended.events, position: latest(ended.position, released.position) };
}

export const deleteBackup = (ctx: CommandContext, id: string, reason: 'request' | 'retention' = 'request') =>
  execute(ctx, backup, id, (s) => backup.decide.delete(s, reason));

/** After the deleted backup's file and object were removed; a no-op once recorded. */
export const recordFilesRemoved = (ctx: CommandContext, id: string) => execute(ctx, backup, id, backup.decide.filesRemoved);

/** Deletes a backup of a deleted service (see backup.decide.deleteWithService); a no-op once it is deleted. */
export const deleteWithService = (ctx: CommandContext, id: string) => execute(ctx, backup, id, backup.decide.deleteWithService);
