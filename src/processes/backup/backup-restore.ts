import { createHash, randomUUID } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { backup } from '../../../commands/backup/aggregate.js';
import { backupIdOfRestoreOwner, endRestore, loadBackup, startRestore } from '../../../commands/backup/handlers.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { conflict, DomainError } from '../../../commands/shared/domain-error.js';
import { reservationsOfKind } from '../../../projections/reservation-queries.js';
import { restoreDatabase } from '../../engines/backup-tools.js';
import { createPrivateFile, openPrivateFile, type OpenedFile } from '../../private-files.js';
import { backupDirectoryFor } from './backup-files.js';
import { backupTargetOf, BackupFailure, type BackupDeps } from './backup-target.js';
import { recorded } from '../recorded.js';

const hashing = (hash: ReturnType<typeof createHash>) =>
  new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });

/** The checksum of the file at `path`, or null when there is none. */
async function checksumOf(path: string): Promise<string | null> {
  const file = await openPrivateFile(path);
  if (!file) return null;
  const hash = createHash('sha256');
  for await (const chunk of file.handle.createReadStream()) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/**
 * The backup's bytes as a local file whose checksum is verified: the disk copy, or the remote object
 * downloaded (and hashed on the way) when there is no disk copy. A mismatch or a missing copy restores nothing.
 */
async function verifiedCopy(deps: BackupDeps, id: string, expected: string, localPath: string | null, remoteKey: string | null) {
  const local = localPath ? join(deps.dataDir, localPath) : null;
  const checksum = local ? await checksumOf(local) : null;
  if (local && checksum !== null) {
    if (checksum !== expected) throw conflict(`the backup file does not match its checksum ${expected}: it was changed or damaged; nothing was restored`);
    return { path: local, temporary: false };
  }
  if (!remoteKey) throw conflict('the backup file is missing from the disk; nothing was restored');
  const storage = await deps.remoteStorage();
  if (!storage) throw conflict('the backup is stored remotely and remote storage is not connected; nothing was restored');
  const path = join(deps.dataDir, 'backups', 'downloads', `${id}-${randomUUID()}`);
  backupDirectoryFor(deps.dataDir, dirname(path));
  try {
    const { body } = await storage.download(remoteKey);
    const hash = createHash('sha256');
    await pipeline(body, hashing(hash), createPrivateFile(path));
    if (`sha256:${hash.digest('hex')}` !== expected) throw conflict(`the remote copy does not match its checksum ${expected}: it was changed or damaged; nothing was restored`);
    return { path, temporary: true };
  } catch (error) {
    await unlink(path).catch(() => undefined);
    if ((error as { kind?: string }).kind === 'not_found') throw conflict('the backup object is missing from the remote storage; nothing was restored');
    throw error;
  } finally {
    storage.close();
  }
}

export class RestoreFailure extends Error {}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Restores a succeeded backup into a running database service of the same engine, once its copy is verified.
 * Its start and outcome are recorded (who, what, into which service); while it runs, another restore or an
 * import into the service is refused. A retry of the same request answers with the outcome it finds.
 */
export async function restoreBackup(
  deps: BackupDeps,
  ctx: CommandContext,
  guard: Parameters<typeof startRestore>[1],
  backupId: string,
  into: { serviceId: string; projectId: string; engine: string },
) {
  // What can never start is refused without a trace in the log.
  const state = await loadBackup(ctx, backupId);
  backup.decide.restoreStart(state, into);
  const target = await backupTargetOf(deps, into.serviceId).catch((error: unknown) => {
    throw error instanceof BackupFailure ? conflict(error.message) : error;
  });
  await startRestore(ctx, guard, backupId, into);
  const started = await loadBackup(ctx, backupId);
  if (started.restoringInto?.serviceId !== into.serviceId) {
    // An earlier attempt of this very request (same Idempotency-Key) ran it: answer with its outcome.
    const error = started.lastRestore?.error ?? null;
    const ended = await endRestore(ctx, backupId, into, error);
    if (error !== null) throw new RestoreFailure(error);
    return ended;
  }
  let failure: unknown = null;
  let copy: { path: string; temporary: boolean } | null = null;
  let file: OpenedFile | null = null;
  try {
    copy = await verifiedCopy(deps, backupId, started.checksum!, started.requested!.localPath, started.requested!.remoteKey);
    file = await openPrivateFile(copy.path);
    if (!file) throw new Error('the backup file was removed before it could be restored');
    await restoreDatabase(target.runtime, target, file.handle.createReadStream({ autoClose: false }), file.size, AbortSignal.timeout(deps.timeoutMs));
  } catch (error) {
    failure = error;
  } finally {
    await file?.handle.close();
    if (copy?.temporary) await unlink(copy.path).catch(() => undefined);
  }
  const ended = await recorded(() => endRestore(ctx, backupId, into, failure === null ? null : messageOf(failure)));
  // A copy that cannot be used is the client's to fix (409); a restore that went wrong is the tool's (422).
  if (failure instanceof DomainError) throw failure;
  if (failure !== null) throw new RestoreFailure(messageOf(failure));
  return ended;
}

/**
 * Restores run inside their request: one whose reservation was taken before this process started was cut
 * short by a stop or a crash. It ends failed, and its service is free for the next restore or import.
 */
export async function endInterruptedRestores(deps: Pick<BackupDeps, 'cmd' | 'db'>, startedBefore: Date) {
  for (const held of await reservationsOfKind(deps.db, 'database-restore')) {
    if (new Date(held.reserved_at) >= startedBefore) continue;
    const id = backupIdOfRestoreOwner(held.owner);
    const into = (await loadBackup(deps.cmd, id)).restoringInto ?? { serviceId: held.value, projectId: '' };
    await endRestore(deps.cmd, id, into, 'Slipway stopped while the restore ran; the database may hold part of the backup');
  }
}
