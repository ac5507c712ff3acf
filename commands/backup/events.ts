import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

export const BACKUP_STORAGE = ['disk', 'remote', 'disk+remote'] as const;
export type BackupStorage = (typeof BACKUP_STORAGE)[number];
export const BACKUP_TRIGGERS = ['manual', 'scheduled'] as const;

/**
 * A backup of a database service (`backup-<id>`). Requested means running: the backup runner takes it from
 * the log. Paths and keys are fixed at the request and carry the backup id, so a retried or interrupted run
 * finds what it left behind.
 */
export const backupEvents = {
  BackupRequested: z.object({
    serviceId: z.string(),
    projectId: z.string(),
    serviceSlug: z.string(),
    engine: z.string(),
    format: z.string(),
    storage: z.enum(BACKUP_STORAGE),
    trigger: z.enum(BACKUP_TRIGGERS),
    /** The UTC day a scheduled backup stands for (retention counts days, weeks and months by it). */
    scheduledFor: z.string().nullable().default(null),
    /** Relative to the data directory; null for remote-only backups. */
    localPath: z.string().nullable(),
    /** The object key under the remote storage's prefix; null for disk-only backups. */
    remoteKey: z.string().nullable(),
  }),
  /** The runner took it; one that was started but has no live run after a restart was interrupted. */
  BackupStarted: z.object({}),
  BackupSucceeded: z.object({ sizeBytes: z.number().int().min(0), checksum: z.string() }),
  BackupFailed: z.object({ error: z.string() }),
  /** A restore of this backup into a database service began; `BackupRestored` or `BackupRestoreFailed` ends it. */
  BackupRestoreStarted: z.object({ serviceId: z.string(), projectId: z.string() }),
  BackupRestored: z.object({ serviceId: z.string(), projectId: z.string() }),
  BackupRestoreFailed: z.object({ serviceId: z.string(), projectId: z.string(), error: z.string() }),
  /**
   * Deleted for its users: no longer listed, downloaded or restored. Its file and object are removed after
   * this is recorded, so a removal cut short (a crash, unreachable storage) is finished by the runner's reconcile.
   * `service-deleted`: its database service was deleted, and its backups with it.
   */
  BackupDeleted: z.object({ reason: z.enum(['request', 'retention', 'service-deleted']) }),
  /** The deleted backup's file and object are gone: nothing of it is left to remove. */
  BackupFilesRemoved: z.object({}),
};
export type BackupEvent = EventsOf<typeof backupEvents>;
export const parseBackupEvent = eventParser(backupEvents);
