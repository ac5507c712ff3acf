import type { SqlExecutor } from '../src/db/sql-client.js';

export interface BackupRow {
  id: string;
  service_id: string;
  project_id: string;
  service_slug: string;
  engine: string;
  status: 'running' | 'succeeded' | 'failed';
  trigger: 'manual' | 'scheduled';
  storage: 'disk' | 'remote' | 'disk+remote';
  format: string;
  scheduled_for: string | null;
  local_path: string | null;
  remote_key: string | null;
  size_bytes: string | number | null;
  checksum: string | null;
  error: string | null;
  /** The runner took it (BackupStarted). */
  run_started: boolean;
  last_restored_at: Date | string | null;
  created_at: Date | string;
  started_at: Date | string;
  finished_at: Date | string | null;
}

export interface BackupSettingsRow {
  service_id: string;
  storage: 'disk' | 'remote' | 'disk+remote';
  automatic_enabled: boolean;
  daily_enabled: boolean;
  weekly_enabled: boolean;
  monthly_enabled: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

export async function findBackup(db: SqlExecutor, id: string): Promise<BackupRow | null> {
  const { rows } = await db.query<BackupRow>('select * from rm_backups where id = $1', [id]);
  return rows[0] ?? null;
}

/** Newest first. */
export async function listBackupsOf(db: SqlExecutor, serviceId: string): Promise<BackupRow[]> {
  const { rows } = await db.query<BackupRow>('select * from rm_backups where service_id = $1 order by created_at desc, id desc', [serviceId]);
  return rows;
}

export async function listRunningBackups(db: SqlExecutor): Promise<BackupRow[]> {
  const { rows } = await db.query<BackupRow>("select * from rm_backups where status = 'running' order by created_at, id");
  return rows;
}

export async function findBackupSettings(db: SqlExecutor, serviceId: string): Promise<BackupSettingsRow | null> {
  const { rows } = await db.query<BackupSettingsRow>('select * from rm_backup_settings where service_id = $1', [serviceId]);
  return rows[0] ?? null;
}

/** A service's scheduled backups that succeeded: what retention chooses from. */
export async function listScheduledBackupsOf(db: SqlExecutor, serviceId: string): Promise<BackupRow[]> {
  const { rows } = await db.query<BackupRow>("select * from rm_backups where service_id = $1 and trigger = 'scheduled' and status = 'succeeded'", [serviceId]);
  return rows;
}

/** Services whose backups run on the schedule. */
export async function listScheduledBackupSettings(db: SqlExecutor): Promise<BackupSettingsRow[]> {
  const { rows } = await db.query<BackupSettingsRow>('select * from rm_backup_settings where automatic_enabled order by service_id');
  return rows;
}

/** A deleted backup whose file and object have not been recorded as removed. */
export interface BackupRemovalRow {
  id: string;
  service_id: string;
  local_path: string | null;
  remote_key: string | null;
  deleted_at: Date | string;
}

/** Deleted backups whose copies are still to be removed, oldest deletion first. */
export async function listBackupRemovals(db: SqlExecutor): Promise<BackupRemovalRow[]> {
  const { rows } = await db.query<BackupRemovalRow>('select * from rm_backup_removals order by deleted_at, id');
  return rows;
}
