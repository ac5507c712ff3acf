import type { Cron } from 'croner';
import { dueToRun, latestDueAtOrBefore, MISSED_REACH_MS, nextDueAfter, parseSchedule } from '../../../commands/job/schedule.js';
import type { JobRow } from '../../../projections/job-queries.js';

interface Planned {
  cron: Cron;
  /** What the entry was planned from: a change of any of these plans it anew. */
  shape: string;
  /** The next due time to act on; null when the schedule has none left. */
  next: number | null;
}

/** A due time to act on now. */
export interface Due {
  jobId: string;
  dueAt: number;
}

const ms = (at: Date | string) => new Date(at).getTime();

/**
 * The scheduler's plan: for each enabled job, its next due time. In memory and rebuilt from the jobs read model
 * at any time; the log decides what has run (a run's id derives from its job and due time), never this plan.
 */
export class JobPlan {
  private readonly jobs = new Map<string, Planned>();

  get size() {
    return this.jobs.size;
  }

  /**
   * Takes the jobs as the read model has them now. A job planned for the first time (at start, or created or
   * changed since) has its latest due time since `schedule_since`, at most `MISSED_REACH_MS` back, due at once:
   * a due time missed while Slipway was down runs once, late. The others keep their next due time.
   */
  replace(rows: readonly JobRow[], now: number): Due[] {
    const due: Due[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.id);
      const shape = `${row.schedule}\u0000${row.timezone}\u0000${ms(row.schedule_since)}`;
      if (this.jobs.get(row.id)?.shape === shape) continue;
      const parsed = parseSchedule(row.schedule, row.timezone);
      if (!parsed.ok) {
        this.jobs.delete(row.id);
        continue;
      }
      const missed = dueToRun(parsed.cron, now, Math.max(ms(row.schedule_since), now - MISSED_REACH_MS));
      if (missed !== null) due.push({ jobId: row.id, dueAt: missed });
      this.jobs.set(row.id, { cron: parsed.cron, shape, next: nextDueAfter(parsed.cron, now) });
    }
    for (const id of this.jobs.keys()) if (!seen.has(id)) this.jobs.delete(id);
    return due;
  }

  /** The due times that have come by `now` (one per job: the latest), each job then planned for its next one. */
  takeDue(now: number): Due[] {
    const due: Due[] = [];
    for (const [jobId, planned] of this.jobs) {
      if (planned.next === null || planned.next > now) continue;
      due.push({ jobId, dueAt: latestDueAtOrBefore(planned.cron, now) ?? planned.next });
      planned.next = nextDueAfter(planned.cron, now);
    }
    return due;
  }

  /** After the wall clock jumped: every job's next due time from `now` (one skipped over by a jump forward is due). */
  rebase(now: number): Due[] {
    const due = this.takeDue(now);
    for (const planned of this.jobs.values()) planned.next = nextDueAfter(planned.cron, now);
    return due;
  }

  /** The earliest next due time of all jobs; null when none has one. */
  earliest(): number | null {
    let earliest: number | null = null;
    for (const planned of this.jobs.values()) if (planned.next !== null && (earliest === null || planned.next < earliest)) earliest = planned.next;
    return earliest;
  }
}
