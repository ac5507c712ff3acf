import { z } from 'zod';
import { backupSettingsFields } from '../../../commands/backup-settings/events.js';
import { BACKUP_STORAGE, BACKUP_TRIGGERS } from '../../../commands/backup/events.js';
import { BACKUP_FORMATS } from '../../engines/backup-tools.js';
import { endpoint } from './endpoint.js';
import { id, nullableTimestamp, okBody, timestamp } from './common.js';
import { databaseEngine } from './database.js';

const base = '/api/services/:serviceId/database/backups';

const status = z.enum(['running', 'succeeded', 'failed']);

export const backup = z
  .object({
    id,
    serviceId: id,
    engine: databaseEngine,
    status,
    trigger: z.enum(BACKUP_TRIGGERS),
    storage: z.enum(BACKUP_STORAGE),
    format: z.enum([...new Set(Object.values(BACKUP_FORMATS).map((f) => f.format))]).meta({ description: 'The engine’s dump format.' }),
    localPath: z.string().optional().meta({ description: 'The file on this machine, relative to Slipway’s data directory (answers never show host paths); absent when the backup is stored remotely only.' }),
    remoteKey: z.string().nullable().meta({ description: 'The object’s key in the remote storage; null when the backup is on disk only.' }),
    sizeBytes: z.number().int().nullable().meta({ description: 'Null until the backup has succeeded.' }),
    checksum: z.string().nullable().meta({ description: '`sha256:<hex digest>`; null until the backup has succeeded.' }),
    error: z.string().nullable(),
    createdAt: timestamp,
    startedAt: timestamp,
    finishedAt: nullableTimestamp,
  })
  .meta({ id: 'Backup' });

export const backupSettings = z
  .object({ serviceId: id, ...backupSettingsFields, createdAt: timestamp, updatedAt: timestamp })
  .meta({ id: 'BackupSettings', description: 'Where backups go and the automatic schedule’s tiers; the defaults until they are first saved.' });

const settingsAnswer = z.object({ settings: backupSettings });

export const backupsApi = {
  list: endpoint({
    method: 'get',
    path: base,
    operationId: 'listBackups',
    tag: 'Backups',
    summary: 'A database service’s backups (newest first), its backup settings, and whether remote storage is connected',
    access: 'read',
    response: z.object({ backups: z.array(backup), settings: backupSettings, remote: z.object({ connected: z.boolean() }) }),
    errors: [400],
  }),
  create: endpoint({
    method: 'post',
    path: base,
    operationId: 'createBackup',
    tag: 'Backups',
    summary: 'Start a backup of a database service now',
    description:
      'The backup runs in the background: it is answered `running`; list the backups to see it finish. Without `storage`, the backup goes where the service’s backup settings say (`disk` until they are saved otherwise).',
    access: 'write',
    body: z.object({ storage: z.enum(BACKUP_STORAGE).optional().meta({ description: 'Where the backup goes; default: the service’s backup settings’ `storage`.' }) }),
    response: z.object({ backup }),
  }),
  updateSettings: endpoint({
    method: 'put',
    path: `${base}/settings`,
    operationId: 'updateBackupSettings',
    tag: 'Backups',
    summary: 'Change where backups go and which automatic backups are made and kept',
    description: 'Fields not given keep their value.',
    access: 'write',
    body: z
      .object(backupSettingsFields)
      .partial()
      .strict()
      .refine((s) => Object.keys(s).length > 0, 'must set at least one of storage, automaticEnabled, dailyEnabled, weeklyEnabled, monthlyEnabled'),
    response: settingsAnswer,
  }),
  restore: endpoint({
    method: 'post',
    path: `${base}/:backupId/restore`,
    operationId: 'restoreBackup',
    tag: 'Backups',
    summary: 'Restore a succeeded backup into its database service, replacing what the backup contains',
    description:
      'Answers once the restore has finished; a restore the engine’s tools fail answers 422 (`restore_failed`). One restore or import per service at a time: 409 while another runs. Its start and outcome are in the audit history (`BackupRestoreStarted`, then `BackupRestored` or `BackupRestoreFailed`, on the backup’s stream).',
    access: 'write',
    response: z.object({ ok: z.literal(true), restoredAt: timestamp, backup: z.object({ id, status }) }),
  }),
  download: endpoint({
    method: 'get',
    path: `${base}/:backupId/download`,
    operationId: 'downloadBackup',
    tag: 'Backups',
    summary: 'Download a succeeded backup’s file',
    description: 'From the disk, or from the remote storage when there is no disk copy; 409 when the backup has not succeeded or its file is missing.',
    access: 'read',
    rawResponse: { mediaType: 'application/octet-stream', description: 'The dump, as an attachment named `<service slug>-<UTC time>.<extension>`.' },
    errors: [400, 409],
  }),
  delete: endpoint({
    method: 'delete',
    path: `${base}/:backupId`,
    operationId: 'deleteBackup',
    tag: 'Backups',
    summary: 'Delete a backup and its copies on disk and in the remote storage',
    access: 'write',
    response: okBody,
  }),
};
