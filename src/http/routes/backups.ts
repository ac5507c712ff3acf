import { join } from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import { DEFAULT_BACKUP_SETTINGS, type BackupSettings } from '../../../commands/backup-settings/aggregate.js';
import { changeBackupSettings } from '../../../commands/backup-settings/handlers.js';
import { deleteBackup, requestBackup } from '../../../commands/backup/handlers.js';
import type { Engine } from '../../shared/database-engine.js';
import { conflict, invalid } from '../../../commands/shared/domain-error.js';
import { findBackup, findBackupSettings, listBackupsOf, type BackupRow } from '../../../projections/backup-queries.js';
import type { ServiceRow } from '../../../projections/service-queries.js';
import { findUnfinishedImport } from '../../../projections/import-queries.js';
import { findRemoteStorage } from '../../../projections/settings-queries.js';
import { BACKUP_FORMATS } from '../../engines/backup-tools.js';
import { backupPathOf } from '../../processes/backup/backup-files.js';
import { restoreBackup, RestoreFailure } from '../../processes/backup/backup-restore.js';
import { finishBackupDeletion } from '../../processes/backup/backup-removal.js';
import { openPrivateFile } from '../../private-files.js';
import type { Slipway } from '../../slipway.js';
import { isId, masksSecrets, principalOf, requireProjectAdmin, visibleService, writerOf } from '../auth.js';
import type { Principal } from '../principals.js';
import { forbidden, HttpError, notFoundHttp } from '../errors.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';
import { iso } from '../presenters.js';
import { route } from '../contract/endpoint.js';
import { backup, backupsApi, type backupSettings } from '../contract/backups.js';

function presentBackup(app: Slipway, b: BackupRow): z.infer<typeof backup> {
  return {
    id: b.id,
    serviceId: b.service_id,
    engine: b.engine as Engine,
    status: b.status,
    trigger: b.trigger,
    storage: b.storage,
    format: b.format,
    ...(b.local_path ? { localPath: b.local_path } : {}),
    remoteKey: b.remote_key,
    sizeBytes: b.size_bytes === null ? null : Number(b.size_bytes),
    checksum: b.checksum,
    error: b.error,
    createdAt: new Date(b.created_at).toISOString(),
    startedAt: new Date(b.started_at).toISOString(),
    finishedAt: iso(b.finished_at),
  };
}

async function databaseService(app: Slipway, principal: Principal, serviceId: string): Promise<ServiceRow & { database_engine: Engine }> {
  const row = await visibleService(app.db, principal, serviceId);
  if (row.kind !== 'database' || !row.database_engine) throw invalid('serviceId', 'this service is not a database service');
  return row as ServiceRow & { database_engine: Engine };
}

/** A backup of this service (a backup of another service is addressed through that one). */
async function backupOf(app: Slipway, row: ServiceRow, backupId: string) {
  const found = isId(backupId) ? await findBackup(app.db, backupId) : null;
  if (!found || found.service_id !== row.id) throw notFoundHttp('backup');
  return found;
}

/**
 * The backup as its request left it: the answer is `running`, as the contract says, even when the runner already
 * finished it (a remote backup with no storage fails at once) before the read model was read.
 */
const asRequested = (b: BackupRow): BackupRow => ({ ...b, status: 'running', size_bytes: null, checksum: null, error: null, finished_at: null });

/** `<slug>-<UTC timestamp>.<ext>`, e.g. `main-db-20261123T210000Z.dump`. */
const fileNameOf = (b: BackupRow) =>
  `${b.service_slug}-${new Date(b.created_at).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.${BACKUP_FORMATS[b.engine as Engine].extension}`;

export function backupRoutes(router: Router, app: Slipway) {
  /** The saved settings, or the defaults dated from the service when never saved. */
  async function settingsOf(row: ServiceRow) {
    const saved = await findBackupSettings(app.db, row.id);
    const settings: BackupSettings = saved
      ? { storage: saved.storage, automaticEnabled: saved.automatic_enabled, dailyEnabled: saved.daily_enabled, weeklyEnabled: saved.weekly_enabled, monthlyEnabled: saved.monthly_enabled }
      : DEFAULT_BACKUP_SETTINGS;
    return { settings, dates: { createdAt: new Date(saved?.created_at ?? row.created_at).toISOString(), updatedAt: new Date(saved?.updated_at ?? row.created_at).toISOString() } };
  }
  const presentSettings = async (row: ServiceRow): Promise<z.infer<typeof backupSettings>> => {
    const { settings, dates } = await settingsOf(row);
    return { serviceId: row.id, ...settings, ...dates };
  };

  route(router, backupsApi.list, async (ctx) => {
    const row = await databaseService(app, principalOf(ctx), ctx.params.serviceId!);
    ctx.body = {
      backups: (await listBackupsOf(app.db, row.id)).map((b) => presentBackup(app, b)),
      settings: await presentSettings(row),
      remote: { connected: (await findRemoteStorage(app.db)) !== null },
    };
  });

  route(router, backupsApi.create, async (ctx) => {
    const principal = writerOf(ctx);
    const row = await databaseService(app, principal, ctx.params.serviceId!);
    const given = parseInput(backupsApi.create.body, ctx.request.body ?? {}).storage;
    const storage = given ?? (await settingsOf(row)).settings.storage;
    const { extension, format } = BACKUP_FORMATS[row.database_engine];
    const { id, position } = await requestBackup(requestContext(app, ctx, principal), (backupId) => ({
      serviceId: row.id,
      projectId: row.project_id,
      serviceSlug: row.slug,
      engine: row.database_engine,
      format,
      storage,
      trigger: 'manual',
      scheduledFor: null,
      localPath: storage === 'remote' ? null : backupPathOf(row.id, backupId, extension),
      remoteKey: storage === 'disk' ? null : `${row.id}/${backupId}.${extension}`,
    }));
    await app.settle(position);
    ctx.body = { backup: presentBackup(app, asRequested((await findBackup(app.db, id))!)) };
  });

  route(router, backupsApi.updateSettings, async (ctx) => {
    const principal = writerOf(ctx);
    const row = await databaseService(app, principal, ctx.params.serviceId!);
    const changes = parseInput(backupsApi.updateSettings.body, ctx.request.body ?? {});
    const next = { ...(await settingsOf(row)).settings, ...changes };
    const { position } = await changeBackupSettings(requestContext(app, ctx, principal), { serviceId: row.id, projectId: row.project_id }, next);
    await app.settle(position);
    ctx.body = { settings: await presentSettings(row) };
  });

  route(router, backupsApi.restore, async (ctx) => {
    const principal = writerOf(ctx);
    const row = await databaseService(app, principal, ctx.params.serviceId!);
    requireProjectAdmin(principal, row.project_id, 'restoring a backup over a database');
    const found = await backupOf(app, row, ctx.params.backupId!);
    try {
      const guard = { unfinishedImportOf: (serviceId: string) => findUnfinishedImport(app.db, serviceId) };
      const into = { serviceId: row.id, projectId: row.project_id, engine: row.database_engine };
      const { position } = await restoreBackup(app.backups, requestContext(app, ctx, principal), guard, found.id, into);
      // The restore may have restarted the engine (redis) or replaced what open sessions saw.
      app.databases.drop(row.id);
      await app.settle(position);
    } catch (error) {
      if (error instanceof RestoreFailure) throw new HttpError(422, 'restore_failed', `the restore failed: ${error.message}`);
      throw error;
    }
    ctx.body = { ok: true, restoredAt: new Date().toISOString(), backup: { id: found.id, status: found.status } };
  });

  route(router, backupsApi.download, async (ctx: Context) => {
    const principal = principalOf(ctx);
    const row = await databaseService(app, principal, ctx.params.serviceId!);
    // A dump holds every password and secret the database keeps.
    if (masksSecrets(principal, row.project_id)) throw forbidden('a backup holds the database’s secrets: a project viewer cannot download it');
    const found = await backupOf(app, row, ctx.params.backupId!);
    if (found.status !== 'succeeded') throw conflict(`the backup has not succeeded (it is ${found.status}): there is nothing to download`);
    const local = found.local_path ? await openPrivateFile(join(app.config.dataDir, found.local_path)) : null;
    if (local) {
      ctx.body = local.handle.createReadStream();
      ctx.length = local.size;
    } else {
      if (!found.remote_key) throw conflict('the backup file is missing from the disk');
      const storage = await app.backups.remoteStorage();
      if (!storage) throw conflict('the backup is stored remotely and remote storage is not connected');
      const object = await storage.download(found.remote_key).catch((error: unknown) => {
        storage.close();
        throw (error as { kind?: string }).kind === 'not_found' ? conflict('the backup object is missing from the remote storage') : error;
      });
      object.body.once('close', () => storage.close());
      ctx.body = object.body;
      ctx.length = object.size;
    }
    ctx.type = 'application/octet-stream';
    ctx.set('Content-Disposition', `attachment; filename="${fileNameOf(found)}"`);
  });

  route(router, backupsApi.delete, async (ctx) => {
    const principal = writerOf(ctx);
    const row = await databaseService(app, principal, ctx.params.serviceId!);
    requireProjectAdmin(principal, row.project_id, 'deleting a backup');
    const found = await backupOf(app, row, ctx.params.backupId!);
    const cmd = requestContext(app, ctx, principal);
    const { position } = await deleteBackup(cmd, found.id);
    // Deleted once recorded: copies that cannot be removed now are removed by the backup runner's reconcile.
    await finishBackupDeletion({ ...app.backups, cmd }, found).catch((error: unknown) =>
      app.log.warn('could not remove the copies of a deleted backup yet', { backup: found.id, error: String(error) }),
    );
    await app.settle(position);
    ctx.body = { ok: true };
  });
}
