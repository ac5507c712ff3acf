import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { deleteWithService, recordFilesRemoved } from '../../../commands/backup/handlers.js';
import type { BackupDeps } from './backup-target.js';

/** Removes a backup's file and object; what is already gone is fine. An object it cannot reach is an error. */
export async function removeBackupCopies(deps: Pick<BackupDeps, 'dataDir' | 'remoteStorage'>, backup: { local_path: string | null; remote_key: string | null }) {
  if (backup.local_path) await rm(join(deps.dataDir, backup.local_path), { force: true });
  if (backup.remote_key) {
    const storage = await deps.remoteStorage();
    if (!storage) throw new Error('remote storage is not connected, so the object cannot be removed');
    try {
      await storage.remove(backup.remote_key);
    } finally {
      storage.close();
    }
  }
}

/**
 * The second half of a deletion (BackupDeleted is recorded first; for a backup of a deleted service, here):
 * removes the copies, then records that they are gone. A failure leaves the deletion pending in
 * `rm_backup_removals`; the runner's reconcile retries.
 */
export async function finishBackupDeletion(deps: Pick<BackupDeps, 'cmd' | 'dataDir' | 'remoteStorage'>, removal: { id: string; local_path: string | null; remote_key: string | null }) {
  await deleteWithService(deps.cmd, removal.id);
  await removeBackupCopies(deps, removal);
  await recordFilesRemoved(deps.cmd, removal.id);
}
