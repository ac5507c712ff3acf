import { BACKUP_FORMATS } from '../../engines/backup-tools.js';
import { deleteBackup, requestBackup } from '../../../commands/backup/handlers.js';
import { dueDay, retainedBackups, scheduledBackupId } from '../../../commands/backup/schedule.js';
import type { Engine } from '../../../commands/service/fields.js';
import { DomainError } from '../../../commands/shared/domain-error.js';
import { findBackup, listScheduledBackupSettings, listScheduledBackupsOf } from '../../../projections/backup-queries.js';
import { findService } from '../../../projections/service-queries.js';
import type { Logger } from '../../logger.js';
import { backupPathOf } from './backup-files.js';
import { finishBackupDeletion } from './backup-removal.js';
import type { BackupDeps } from './backup-target.js';
import type { Reactor } from '../reactor.js';

export interface SchedulerOptions {
  hourUtc: number;
  /** Injected so tests can move time. */
  now(): Date;
}

/**
 * Requests the scheduled backup of each service with `automaticEnabled` once its day's hour has come, then
 * applies retention to its scheduled backups. Everything is decided from state: the day's backup has an id
 * derived from the service and the day, so a restart neither skips the latest run nor repeats one.
 */
export class BackupScheduler implements Reactor {
  readonly name = 'backup-scheduler';

  constructor(
    private readonly deps: BackupDeps,
    private readonly options: SchedulerOptions,
    private readonly log: Logger,
  ) {}

  /** The day whose backups the last pass requested. */
  private reconciledDay: string | null = null;

  async handle() {}

  dueWhileAsleep(): boolean {
    return dueDay(this.options.now(), this.options.hourUtc) !== this.reconciledDay;
  }

  async reconcile() {
    const day = dueDay(this.options.now(), this.options.hourUtc);
    this.reconciledDay = day;
    for (const settings of await listScheduledBackupSettings(this.deps.db)) {
      const tiers = { daily: settings.daily_enabled, weekly: settings.weekly_enabled, monthly: settings.monthly_enabled };
      if (!tiers.daily && !tiers.weekly && !tiers.monthly) continue;
      try {
        await this.requestDay(settings.service_id, settings.storage, day);
        await this.applyRetention(settings.service_id, tiers);
      } catch (error) {
        this.log.warn('scheduled backup could not be handled', { service: settings.service_id, error: String(error) });
      }
    }
  }

  private async requestDay(serviceId: string, storage: 'disk' | 'remote' | 'disk+remote', day: string) {
    const id = scheduledBackupId(serviceId, day);
    if (await findBackup(this.deps.db, id)) return;
    const row = await findService(this.deps.db, serviceId);
    // A database that was never deployed has nothing to back up yet.
    if (!row?.database_engine || !row.current_container) return;
    const { format, extension } = BACKUP_FORMATS[row.database_engine as Engine];
    try {
      await requestBackup(
        this.deps.cmd,
        () => ({
          serviceId,
          projectId: row.project_id,
          serviceSlug: row.slug,
          engine: row.database_engine!,
          format,
          storage,
          trigger: 'scheduled',
          scheduledFor: day,
          localPath: storage === 'remote' ? null : backupPathOf(serviceId, id, extension),
          remoteKey: storage === 'disk' ? null : `${serviceId}/${id}.${extension}`,
        }),
        id,
      );
    } catch (error) {
      // Requested already (the read model had not caught up): nothing to do.
      if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
    }
  }

  private async applyRetention(serviceId: string, tiers: { daily: boolean; weekly: boolean; monthly: boolean }) {
    const scheduled = await listScheduledBackupsOf(this.deps.db, serviceId);
    const kept = retainedBackups(
      scheduled.map((b) => ({ id: b.id, createdAt: new Date(`${b.scheduled_for ?? new Date(b.created_at).toISOString().slice(0, 10)}T00:00:00Z`) })),
      tiers,
    );
    for (const b of scheduled) {
      if (kept.has(b.id)) continue;
      await deleteBackup(this.deps.cmd, b.id, 'retention').catch((error: unknown) => {
        if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
      });
      await finishBackupDeletion(this.deps, b).catch((error: unknown) =>
        this.log.warn('could not remove the copies of a deleted backup yet', { backup: b.id, error: String(error) }),
      );
    }
  }
}
