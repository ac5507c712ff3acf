import { performance } from 'node:perf_hooks';
import { parseJobEvent } from '../../../commands/job/events.js';
import { parseServiceEvent } from '../../../commands/service/events.js';
import { listEnabledJobs } from '../../../projections/job-queries.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Logger } from '../../logger.js';
import type { Reactor } from '../reactor.js';
import { actOnDue, type DueOutcome, type JobDueDeps } from './job-due.js';
import { JobPlan, type Due } from './job-plan.js';
import { deleteJobsOfDeletedService, finishJobsOfDeletedServices } from './job-removal.js';

export interface JobSchedulerOptions {
  /** The wall clock due times are read on; injected so tests and the bench can move time. */
  now(): number;
  /** The longest the timer sleeps: how soon a jump of the wall clock is noticed at the latest. */
  maxSleepMs?: number;
  /** How many due times are acted on at once (100 jobs due at one minute). */
  parallel?: number;
}

const MAX_SLEEP_MS = 60_000;
/** A gap this large between the wall clock and the monotonic clock across one sleep is a jump of the wall clock. */
const JUMP_MS = 2_000;

/**
 * The job scheduler (process manager): one timer to the earliest next due time of all enabled jobs, never a
 * poll per job. At a due time it requests the job's run with an id derived from the job and the due time
 * (job-due.ts), so no due time runs twice, whichever scheduler, restart or retry asks. The plan is rebuilt from
 * the jobs read model when job events or a service's deletion arrive through the log, and from now when the
 * wall clock jumps. It also records the JobDeleted of a deleted service's jobs, caused by the deletion.
 */
export class JobScheduler implements Reactor {
  readonly name = 'job-scheduler';
  private readonly plan = new JobPlan();
  private loaded = false;
  private dirty = true;
  private started = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  /** The wall and monotonic clocks when the timer was set, to notice a jump of the wall clock. */
  private armedAt = { wall: 0, mono: 0 };
  private work: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: JobDueDeps,
    private readonly options: JobSchedulerOptions,
    private readonly log: Logger,
  ) {}

  /** Arms the timer (the composition root calls it once the process managers run). */
  start() {
    this.started = true;
    this.enqueue(() => this.tick());
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.work;
  }

  async handle(batch: readonly RecordedEvent[]) {
    for (const recorded of batch) {
      if (recorded.streamId.startsWith('job-') && parseJobEvent(recorded)) this.dirty = true;
      if (recorded.streamId.startsWith('service-') && parseServiceEvent(recorded)?.type === 'ServiceDeleted') {
        this.dirty = true;
        await deleteJobsOfDeletedService(this.deps, recorded);
      }
    }
    if (this.dirty && this.loaded) await this.enqueue(() => this.tick());
  }

  async reconcile() {
    await finishJobsOfDeletedServices(this.deps, this.log);
    if (!this.loaded) await this.enqueue(() => this.tick());
  }

  /**
   * Acts on what is due now: re-reads the jobs if they changed (a job planned anew may have a missed due time),
   * takes the due times that have come, acts on each, and sets the timer to the next one. Tests call it directly.
   */
  async tick(): Promise<DueOutcome[]> {
    if (this.stopped) return [];
    const now = this.options.now();
    const due: Due[] = [];
    if (this.dirty || !this.loaded) {
      this.dirty = false;
      due.push(...this.plan.replace(await listEnabledJobs(this.deps.db), now));
      this.loaded = true;
    }
    due.push(...(this.wallClockJumped() ? this.plan.rebase(now) : this.plan.takeDue(now)));
    const outcomes = await this.actOn(due, now);
    this.arm();
    return outcomes;
  }

  /** How many jobs are planned (health and the bench). */
  get plannedJobs() {
    return this.plan.size;
  }

  private async actOn(due: readonly Due[], now: number): Promise<DueOutcome[]> {
    const outcomes: DueOutcome[] = [];
    let next = 0;
    const worker = async () => {
      while (next < due.length && !this.stopped) {
        const { jobId, dueAt } = due[next++]!;
        try {
          outcomes.push(await actOnDue(this.deps, jobId, dueAt, now));
        } catch (error) {
          // Its run id is fixed by its due time: the next start's missed-run pass may still record it.
          this.log.warn('a job’s due time could not be acted on', { job: jobId, dueAt: new Date(dueAt).toISOString(), error: String(error) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.parallel ?? 8, due.length) }, worker));
    return outcomes;
  }

  private wallClockJumped(): boolean {
    if (this.armedAt.mono === 0) return false;
    const drift = this.options.now() - this.armedAt.wall - (performance.now() - this.armedAt.mono);
    if (Math.abs(drift) < JUMP_MS) return false;
    this.log.info('the wall clock jumped: jobs are planned again from now', { jumpMs: Math.round(drift) });
    return true;
  }

  private arm() {
    if (!this.started || this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const now = this.options.now();
    const earliest = this.plan.earliest();
    const maxSleep = this.options.maxSleepMs ?? MAX_SLEEP_MS;
    const delay = earliest === null ? maxSleep : Math.min(Math.max(0, earliest - now), maxSleep);
    this.armedAt = { wall: now, mono: performance.now() };
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.enqueue(() => this.tick());
    }, delay);
    this.timer.unref();
  }

  /** One tick at a time: the timer, the log and reconcile may all ask at once. */
  private enqueue(fn: () => Promise<unknown>): Promise<void> {
    this.work = this.work
      .then(async () => void (await fn()))
      .catch((error: unknown) => {
        this.log.warn('the job scheduler could not plan; it tries again', { error: String(error) });
        this.dirty = true;
        this.arm();
      });
    return this.work;
  }
}
