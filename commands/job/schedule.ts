import { Cron } from 'croner';
import { uuidFromName } from '../shared/ids.js';

/** The nicknames a schedule may be, besides five cron fields (as Vixie cron and the issue name them). */
export const SCHEDULE_NICKNAMES = ['@hourly', '@daily', '@weekly', '@monthly', '@yearly', '@midnight'] as const;

/** How far back a due time missed while Slipway was down still runs (the latest one, once). */
export const MISSED_REACH_MS = 24 * 60 * 60_000;

/** A schedule with its zone, ready to answer due times; or why it cannot be. */
export type ParsedSchedule = { ok: true; cron: Cron } | { ok: false; field: 'schedule' | 'timezone'; message: string };

/** Whether `zone` is an IANA time zone name this runtime knows (`UTC` included). */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses five cron fields (minute hour day-of-month month day-of-week, croner's syntax) or one of the nicknames,
 * in an IANA zone. Pure: no timer is started. A schedule that is never due (`0 0 30 2 *`) is refused.
 */
export function parseSchedule(schedule: string, timezone: string): ParsedSchedule {
  if (!isTimeZone(timezone)) return { ok: false, field: 'timezone', message: `"${timezone.slice(0, 64)}" is not an IANA time zone (e.g. UTC, Europe/Berlin)` };
  const pattern = schedule.trim();
  if (pattern.startsWith('@') && !(SCHEDULE_NICKNAMES as readonly string[]).includes(pattern.toLowerCase())) {
    return { ok: false, field: 'schedule', message: `unknown nickname; use five cron fields or one of ${SCHEDULE_NICKNAMES.join(', ')}` };
  }
  let cron: Cron;
  try {
    cron = new Cron(pattern.toLowerCase().startsWith('@') ? pattern.toLowerCase() : pattern, { mode: '5-part', timezone });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
    return { ok: false, field: 'schedule', message: `not a cron schedule (minute hour day-of-month month day-of-week): ${reason}` };
  }
  if (cron.nextRun(new Date(0)) === null) return { ok: false, field: 'schedule', message: 'this schedule is never due' };
  return { ok: true, cron };
}

/** The first due time strictly after `after`; null when there is none. */
export function nextDueAfter(cron: Cron, after: number): number | null {
  return cron.nextRun(new Date(after))?.getTime() ?? null;
}

/** The latest due time at or before `at`; null when there is none. */
export function latestDueAtOrBefore(cron: Cron, at: number): number | null {
  // croner's previousRuns is exclusive of its reference: one millisecond later includes `at` itself.
  const [previous] = cron.previousRuns(1, new Date(at + 1));
  return previous ? previous.getTime() : null;
}

/**
 * The due time to run at `now`: the latest one at or before `now` that is after `since` (exclusive), or null.
 * One run for any number of missed slots: a server down for an hour runs an every-minute job once, late.
 */
export function dueToRun(cron: Cron, now: number, since: number): number | null {
  const due = latestDueAtOrBefore(cron, now);
  return due !== null && due > since ? due : null;
}

/**
 * The id of a job's run for one due time: any number of schedulers, restarts and retries request it with
 * expected `no_stream`, so it is recorded once.
 */
export const scheduledRunId = (jobId: string, dueAt: number) => uuidFromName(`job-run|${jobId}|${new Date(dueAt).toISOString()}`);
