import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { BACKUP_STORAGE } from '../backup/events.js';

export const backupSettingsFields = {
  storage: z.enum(BACKUP_STORAGE),
  automaticEnabled: z.boolean(),
  dailyEnabled: z.boolean(),
  weeklyEnabled: z.boolean(),
  monthlyEnabled: z.boolean(),
};

/** A database service's backup settings (`backupsettings-<serviceId>`): where backups go, and the schedule's tiers. */
export const backupSettingsEvents = {
  BackupSettingsChanged: z.object({ serviceId: z.string(), projectId: z.string(), ...backupSettingsFields }),
};
export type BackupSettingsEvent = EventsOf<typeof backupSettingsEvents>;
export const parseBackupSettingsEvent = eventParser(backupSettingsEvents);
