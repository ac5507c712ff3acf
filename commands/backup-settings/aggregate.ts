import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { parseBackupSettingsEvent, type BackupSettingsEvent } from './events.js';

export type BackupSettings = Omit<Extract<BackupSettingsEvent, { type: 'BackupSettingsChanged' }>['data'], 'serviceId' | 'projectId'>;

/** Until a user changes them: backups to disk, no schedule, every retention tier on once the schedule is. */
export const DEFAULT_BACKUP_SETTINGS: BackupSettings = {
  storage: 'disk',
  automaticEnabled: false,
  dailyEnabled: true,
  weeklyEnabled: true,
  monthlyEnabled: true,
};

const evolution: Evolution<BackupSettings, BackupSettingsEvent> = {
  category: 'backupsettings',
  initial: DEFAULT_BACKUP_SETTINGS,
  evolve(_state, event) {
    const { serviceId: _s, projectId: _p, ...settings } = event.data;
    return settings;
  },
  parse: parseBackupSettingsEvent,
};

const same = (a: BackupSettings, b: BackupSettings) => (Object.keys(a) as (keyof BackupSettings)[]).every((k) => a[k] === b[k]);

/** Saving what is already saved records nothing (an explicit save of the defaults is recorded once). */
function decideChange(state: BackupSettings, changed: boolean, next: BackupSettings, owner: { serviceId: string; projectId: string }): BackupSettingsEvent[] {
  return changed && same(state, next) ? [] : [{ type: 'BackupSettingsChanged', data: { ...owner, ...next } }];
}

/** The backupSettings aggregate and its command vocabulary. */
export const backupSettings = defineAggregate(evolution, {
  change: decideChange,
});
