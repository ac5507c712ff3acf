import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { decideRestored } from '../../commands/backup/aggregate.js';
import { loadBackup, recordRestore, recordRestoreFailure } from '../../commands/backup/handlers.js';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { conflict } from '../../commands/shared/domain-error.js';
import { restoreDatabase } from '../engines/backup-tools.js';
import { backupTargetOf, BackupFailure, type BackupDeps } from './backup-runner.js';

const hashing = (hash: ReturnType<typeof createHash>) =>
  new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });

async function checksumOf(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

const exists = (path: string) => stat(path).then((s) => s.isFile(), () => false);

/**
 * The backup's bytes as a local file whose checksum is verified: the disk copy, or the remote object
 * downloaded (and hashed on the way) when there is no disk copy. A mismatch or a missing copy restores nothing.
 */
async function verifiedCopy(deps: BackupDeps, id: string, expected: string, localPath: string | null, remoteKey: string | null) {
  if (localPath && (await exists(join(deps.dataDir, localPath)))) {
    const path = join(deps.dataDir, localPath);
    if ((await checksumOf(path)) !== expected) throw conflict(`the backup file does not match its checksum ${expected}: it was changed or damaged; nothing was restored`);
    return { path, temporary: false };
  }
  if (!remoteKey) throw conflict('the backup file is missing from the disk; nothing was restored');
  const storage = await deps.remoteStorage();
  if (!storage) throw conflict('the backup is stored remotely and remote storage is not connected; nothing was restored');
  const path = join(deps.dataDir, 'backups', 'downloads', `${id}-${randomUUID()}`);
  await mkdir(dirname(path), { recursive: true });
  try {
    const { body } = await storage.download(remoteKey);
    const hash = createHash('sha256');
    await pipeline(body, hashing(hash), createWriteStream(path));
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

/**
 * Restores a succeeded backup into a running database service of the same engine, once its copy is verified.
 * The restore is recorded (who, what, into which service) whether it succeeds or fails.
 */
export async function restoreBackup(deps: BackupDeps, ctx: CommandContext, backupId: string, into: { serviceId: string; projectId: string; engine: string }) {
  const state = await loadBackup(ctx, backupId);
  decideRestored(state, into);
  const target = await backupTargetOf(deps, into.serviceId).catch((error: unknown) => {
    throw error instanceof BackupFailure ? conflict(error.message) : error;
  });
  const copy = await verifiedCopy(deps, backupId, state.checksum!, state.requested!.localPath, state.requested!.remoteKey);
  try {
    const { size } = await stat(copy.path);
    await restoreDatabase(deps.runtime, target, createReadStream(copy.path), size, AbortSignal.timeout(deps.timeoutMs));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await recordRestoreFailure(ctx, backupId, { serviceId: into.serviceId, projectId: into.projectId }, message);
    throw new RestoreFailure(message);
  } finally {
    if (copy.temporary) await unlink(copy.path).catch(() => undefined);
  }
  return recordRestore(ctx, backupId, into);
}
