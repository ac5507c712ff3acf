import { parseBackupEvent } from '../commands/backup/events.js';
import { parseBackupSettingsEvent } from '../commands/backup-settings/events.js';
import { parseServiceEvent } from '../commands/service/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

const backupEvents = eachEventOf('backup', parseBackupEvent, (event, id, at, out) => {
  const set = (assignments: string) => out.updateById('rm_backups', id, assignments);
  switch (event.type) {
    case 'BackupRequested': {
      const d = event.data;
      out.upsert({
        table: 'rm_backups',
        row: {
          id, service_id: d.serviceId, project_id: d.projectId, service_slug: d.serviceSlug, engine: d.engine, status: 'running', trigger: d.trigger,
          storage: d.storage, format: d.format, scheduled_for: d.scheduledFor, local_path: d.localPath, remote_key: d.remoteKey, created_at: at, started_at: at,
        },
        key: ['id'],
        update: [],
      });
      return;
    }
    case 'BackupStarted':
      return set('run_started = true');
    case 'BackupSucceeded':
      return set(sql`status = 'succeeded', size_bytes = ${event.data.sizeBytes}, checksum = ${event.data.checksum}, finished_at = ${at}`);
    case 'BackupFailed':
      return set(sql`status = 'failed', error = ${event.data.error}, finished_at = ${at}`);
    case 'BackupRestored':
      return set(sql`last_restored_at = ${at}`);
    case 'BackupDeleted':
      // Gone for its users at once; listed for the backup runner until its copies are removed.
      out.sql(sql`insert into rm_backup_removals (id, service_id, local_path, remote_key, deleted_at)
        select id, service_id, local_path, remote_key, ${at} from rm_backups where id = ${id} on conflict (id) do nothing`);
      return out.deleteOwnedBy('rm_backups', 'id', id);
    case 'BackupFilesRemoved':
      return out.deleteOwnedBy('rm_backup_removals', 'id', id);
  }
});

const settingsEvents = eachEventOf('backupsettings', parseBackupSettingsEvent, (event, serviceId, at, out) => {
  const d = event.data;
  out.upsert({
    table: 'rm_backup_settings',
    row: {
      service_id: serviceId, project_id: d.projectId, storage: d.storage, automatic_enabled: d.automaticEnabled, daily_enabled: d.dailyEnabled,
      weekly_enabled: d.weeklyEnabled, monthly_enabled: d.monthlyEnabled, created_at: at, updated_at: at,
    },
    key: ['service_id'],
    update: ['storage', 'automatic_enabled', 'daily_enabled', 'weekly_enabled', 'monthly_enabled', 'updated_at'],
  });
});

// A deleted service's backups go with it: the backup runner records their deletion and removes their files and objects.
const serviceDeletions = eachEventOf('service', parseServiceEvent, (event, serviceId, at, out) => {
  if (event.type !== 'ServiceDeleted') return;
  out.sql(sql`insert into rm_backup_removals (id, service_id, local_path, remote_key, deleted_at)
    select id, service_id, local_path, remote_key, ${at} from rm_backups where service_id = ${serviceId} on conflict (id) do nothing`);
  out.deleteOwnedBy('rm_backups', 'service_id', serviceId);
  out.deleteOwnedBy('rm_backup_settings', 'service_id', serviceId);
});

export const backupsProjector: Projector = {
  name: 'backups',
  version: 2,
  tables: ['rm_backups', 'rm_backup_settings', 'rm_backup_removals'],
  ddl: `
create table if not exists rm_backups (
  id text primary key,
  service_id text not null,
  project_id text not null,
  service_slug text not null,
  engine text not null,
  status text not null,
  trigger text not null,
  storage text not null,
  format text not null,
  scheduled_for text,
  local_path text,
  remote_key text,
  size_bytes bigint,
  checksum text,
  error text,
  run_started boolean not null default false,
  last_restored_at timestamptz,
  created_at timestamptz not null,
  started_at timestamptz not null,
  finished_at timestamptz
);
create table if not exists rm_backup_settings (
  service_id text primary key,
  project_id text not null,
  storage text not null,
  automatic_enabled boolean not null,
  daily_enabled boolean not null,
  weekly_enabled boolean not null,
  monthly_enabled boolean not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create table if not exists rm_backup_removals (
  id text primary key,
  service_id text not null,
  local_path text,
  remote_key text,
  deleted_at timestamptz not null
);`,
  indexes: `
create index if not exists rm_backups_service on rm_backups (service_id, created_at desc);
create index if not exists rm_backups_running on rm_backups (created_at) where status = 'running';`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    for (const event of events) {
      const one = [event];
      backupEvents(one, out);
      settingsEvents(one, out);
      serviceDeletions(one, out);
    }
  },
};
