import { uuidFromName } from '../shared/ids.js';

const DAY_MS = 86_400_000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The UTC day whose scheduled backup should exist by `now`: today once the hour has come, else yesterday.
 * A server that was down at the hour runs the latest missed one when it is back, and never one twice.
 */
export function dueDay(now: Date, hourUtc: number): string {
  return now.getUTCHours() >= hourUtc ? dayOf(now) : dayOf(new Date(now.getTime() - DAY_MS));
}

/** The id of a service's scheduled backup for a day: requesting it twice appends once (expected `no_stream`). */
export const scheduledBackupId = (serviceId: string, day: string) => uuidFromName(`scheduled-backup|${serviceId}|${day}`);

export interface Tiers {
  daily: boolean;
  weekly: boolean;
  monthly: boolean;
}

export const RETENTION = { daily: 7, weekly: 4, monthly: 12 } as const;

/** Monday of the ISO week, as a day. */
const weekOf = (d: Date) => dayOf(new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS));
const monthOf = (d: Date) => d.toISOString().slice(0, 7);

/**
 * Which scheduled backups retention keeps: for each enabled tier, the newest backup of each of the newest
 * 7 days, 4 ISO weeks or 12 months that have one. Everything else scheduled may go; manual backups are never
 * considered here.
 */
export function retainedBackups(backups: readonly { id: string; createdAt: Date }[], tiers: Tiers): Set<string> {
  const newestFirst = [...backups].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  const kept = new Set<string>();
  const keep = (periodOf: (d: Date) => string, count: number) => {
    const seen = new Set<string>();
    for (const b of newestFirst) {
      const period = periodOf(b.createdAt);
      if (seen.has(period)) continue;
      if (seen.size === count) break;
      seen.add(period);
      kept.add(b.id);
    }
  };
  if (tiers.daily) keep(dayOf, RETENTION.daily);
  if (tiers.weekly) keep(weekOf, RETENTION.weekly);
  if (tiers.monthly) keep(monthOf, RETENTION.monthly);
  return kept;
}
