import { reasonText } from '../../commands/shared/printable.js';
import type { ProjectionRunner } from '../../projections/runner.js';
import { parkStatement } from '../../projections/parked.js';
import { isDatabaseFault } from '../db/database-faults.js';
import { ReadModelRebuildingError } from '../../projections/read-model-errors.js';
import type { SqlClient, SqlValue } from '../db/sql-client.js';
import type { EventStore, RecordedEvent } from '../eventstore/port.js';
import { earliest } from '../eventstore/position.js';
import type { Logger } from '../logger.js';
import type { Reactor } from './reactor.js';

const DDL = `
create table if not exists pm_checkpoints (
  name text primary key,
  position text collate "C" not null default ''
);`;

const BATCH = 500;
/** Checkpoints are written at most this often (and at stop): after a crash, handlers see at most this much again. */
const SAVE_EVERY_MS = 500;
/** Batches the runner just applied, kept to spare a read of the log when a process manager is right behind. */
const RECENT_BATCHES = 16;
/** A batch a reactor keeps failing on is retried with growing pauses up to this. */
const MAX_BACKOFF_MS = 30_000;
/**
 * After this many failed tries of a batch, it goes event by event and an event that still fails is parked
 * (in `proj_parked`, as `process-manager:<name>`), so one poison event cannot stop a process manager for
 * good. Safe because each one's reconcile repairs from state whatever a skipped event would have done.
 * Only failures on a healthy database count: a database fault pauses the reactor instead (see `paused`).
 */
const PARK_AFTER = 5;
/** A reactor paused by a database fault tries again with growing pauses up to this, so it resumes soon after. */
const MAX_PAUSE_BACKOFF_MS = 5_000;
/**
 * While the store sleeps (pglite-sleep.ts) nothing has been written, so a reconcile has only what Docker and
 * time bring: it runs this often, and when a reactor says time has made work due (a backup schedule).
 */
const ASLEEP_RECONCILE_EVERY_MS = 10 * 60_000;

interface Follower {
  reactor: Reactor;
  position: string | null;
  failures: number;
  retryAt: number;
  /** Set while a database fault holds it back: the events wait, none is blamed (parked) for it. */
  paused: Pause | null;
}

interface Pause {
  error: string;
  since: Date;
  tries: number;
}

/** A process manager as health shows it. */
export interface ProcessManagerStatus {
  name: string;
  position: string | null;
  state: 'running' | 'paused';
  /** The database fault it is paused on, and since when. */
  error: string | null;
  pausedSince: Date | null;
}

export interface ProcessManagerOptions {
  /** How often each reactor's reconcile runs (and the log is looked at even without a wake-up). */
  reconcileEveryMs: number;
}

/**
 * Feeds each process manager the log from its own checkpoint in `pm_checkpoints`, one batch at a time and
 * only as far as the read models have got (handlers read them). The runner's in-memory notice only wakes
 * this loop; what a reactor sees is always read from the log, so an event applied any other way (a
 * rebuild, another process) reaches it too. A reactor that fails a batch gets it again later; the others go on.
 */
export class ProcessManagers {
  private followers: Follower[] = [];
  private pumping: Promise<void> = Promise.resolve();
  private pending = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private reconciling: Promise<void> = Promise.resolve();
  private reconciledAt = 0;
  private recent: { after: string | null; batch: readonly RecordedEvent[] }[] = [];
  private unsaved = new Set<Follower>();
  /** A database fault met while reading the log for them: every reactor waits for it to pass. */
  private readFault: Pause | null = null;
  private saving: Promise<void> = Promise.resolve();
  private saveTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: SqlClient,
    private readonly store: EventStore,
    private readonly runner: ProjectionRunner,
    private readonly reactors: readonly Reactor[],
    private readonly options: ProcessManagerOptions,
    private readonly log: Logger,
  ) {}

  /** Loads the checkpoints; a reactor seen for the first time starts at the head (its reconcile covers the past). */
  async start(): Promise<void> {
    await this.db.exec(DDL);
    const { rows } = await this.db.query<{ name: string; position: string }>('select name, position from pm_checkpoints');
    const stored = new Map(rows.map((r) => [r.name, r.position]));
    const head = this.runner.position;
    for (const reactor of this.reactors) {
      const position = stored.has(reactor.name) ? stored.get(reactor.name) || null : head;
      const follower: Follower = { reactor, position, failures: 0, retryAt: 0, paused: null };
      this.followers.push(follower);
      if (!stored.has(reactor.name)) this.unsaved.add(follower);
    }
    await this.save();
    this.unsubscribe = this.runner.onApplied((batch, after) => {
      this.recent.push({ after, batch });
      if (this.recent.length > RECENT_BATCHES) this.recent.shift();
      this.wake();
    });
    this.reconcileAll();
    this.wake();
    this.timer = setInterval(() => {
      if (this.db.asleep() && !this.dueWhileAsleep()) return;
      this.reconcileAll();
      this.wake();
    }, this.options.reconcileEveryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.pumping;
    await this.reconciling;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    await this.save();
  }

  /** Every process manager's checkpoint and whether a database fault pauses it, for health. */
  async checkpoints(): Promise<ProcessManagerStatus[]> {
    return this.followers.map((f) => {
      const pause = f.paused ?? this.readFault;
      return { name: f.reactor.name, position: f.position, state: pause ? 'paused' : 'running', error: pause?.error ?? null, pausedSince: pause?.since ?? null };
    });
  }

  /** Resolves once every reactor has handled the log up to `position` (tests, and callers that must know). */
  async reached(position: string, timeoutMs = 30_000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      if (this.followers.every((f) => f.position !== null && f.position >= position)) return true;
      this.wake();
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  }

  private dueWhileAsleep(): boolean {
    return Date.now() - this.reconciledAt >= ASLEEP_RECONCILE_EVERY_MS || this.reactors.some((r) => r.dueWhileAsleep?.() === true);
  }

  private reconcileAll() {
    if (this.stopped) return;
    this.reconciledAt = Date.now();
    this.reconciling = this.reconciling.then(async () => {
      for (const { reactor } of this.followers) {
        if (this.stopped) return;
        await reactor.reconcile?.().catch((error: unknown) => this.log.warn('process manager reconcile failed', { name: reactor.name, error: String(error) }));
      }
    });
  }

  private wake() {
    if (this.stopped || this.pending) return;
    this.pending = true;
    this.pumping = this.pumping.then(async () => {
      this.pending = false;
      await this.pump().catch((error: unknown) => this.readFailed(error));
    });
  }

  /** A read of the log that met a database fault pauses them all until a read succeeds. */
  private readFailed(error: unknown) {
    this.log.warn('process managers could not read the log', { error: String(error) });
    if (!isDatabaseFault(error)) return;
    this.readFault = nextPause(this.readFault, error);
    setTimeout(() => this.wake(), pauseDelay(this.readFault.tries)).unref();
  }

  private async pump() {
    for (;;) {
      if (this.stopped) return;
      const horizon = this.runner.position;
      const ready = this.followers.filter((f) => Date.now() >= f.retryAt && (horizon === null ? false : f.position === null || f.position < horizon));
      if (ready.length === 0) return;
      const from = earliest(ready.map((f) => f.position));
      // The log is the source; a batch the runner has just applied, starting exactly there, is the same events.
      const read = this.recent.find((r) => r.after === from)?.batch ?? (await this.store.readAll({ after: from, maxCount: BATCH }));
      this.readFault = null;
      const batch = read.filter((e) => e.position <= horizon!);
      if (batch.length === 0) return;
      // Each at its own pace: a slow proxy reload does not hold back an abort.
      await Promise.all(ready.map((follower) => this.deliver(follower, batch)));
    }
  }

  private async deliver(follower: Follower, batch: readonly RecordedEvent[]) {
    const events = follower.position === null ? batch : batch.filter((e) => e.position > follower.position!);
    if (events.length === 0) return;
    const last = events[events.length - 1]!.position;
    if (follower.failures >= PARK_AFTER) {
      await this.oneByOne(follower, events);
      return;
    }
    try {
      await follower.reactor.handle(events);
      follower.failures = 0;
      this.running(follower);
    } catch (error) {
      if (await this.databaseAtFault(error)) return this.pause(follower, error);
      follower.failures++;
      follower.retryAt = Date.now() + Math.min(MAX_BACKOFF_MS, 250 * 2 ** follower.failures);
      this.log.warn('process manager failed a batch; it is retried', { name: follower.reactor.name, failures: follower.failures, error: String(error) });
      setTimeout(() => this.wake(), follower.retryAt - Date.now()).unref();
      return;
    }
    this.moved(follower, last);
  }

  private async oneByOne(follower: Follower, events: readonly RecordedEvent[]) {
    for (const event of events) {
      try {
        await follower.reactor.handle([event]);
      } catch (error) {
        if (await this.databaseAtFault(error)) return this.pause(follower, error);
        const projector = `process-manager:${follower.reactor.name}`;
        const park = parkStatement({ projector, event, error: String(error), attempts: follower.failures });
        try {
          await this.db.query(park.text, park.params as SqlValue[]);
        } catch (parkError) {
          // Not parked, so not passed: the event is tried again once the database answers.
          return this.pause(follower, parkError);
        }
        this.log.error('a process manager parked an event it cannot handle', { name: follower.reactor.name, event: event.id, type: event.type, error: String(error) });
      }
      this.moved(follower, event.position);
      this.running(follower);
    }
    follower.failures = 0;
  }

  /**
   * Whether a failure is the database's rather than the event's: a database or connection fault, or any
   * error at a moment the database does not answer a trivial statement, or a read model it reads being
   * rebuilt after an upgrade (it answers again at the swap). Checked before an event is blamed.
   */
  private async databaseAtFault(error: unknown): Promise<boolean> {
    if (isDatabaseFault(error) || error instanceof ReadModelRebuildingError) return true;
    return this.db.query('select 1').then(
      () => false,
      () => true,
    );
  }

  /** Holds the reactor back without counting a try toward parking; it tries again with backoff. */
  private pause(follower: Follower, error: unknown) {
    if (!follower.paused) this.log.warn('a database fault pauses a process manager; it resumes when the database answers', { name: follower.reactor.name, error: String(error) });
    follower.paused = nextPause(follower.paused, error);
    follower.retryAt = Date.now() + pauseDelay(follower.paused.tries);
    setTimeout(() => this.wake(), follower.retryAt - Date.now()).unref();
  }

  private running(follower: Follower) {
    if (follower.paused) this.log.info('a process manager resumed after a database fault', { name: follower.reactor.name });
    follower.paused = null;
    follower.retryAt = 0;
  }

  private moved(follower: Follower, position: string) {
    follower.position = position;
    this.unsaved.add(follower);
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = null;
      void this.save().catch((error: unknown) => this.log.warn('could not store process manager checkpoints', { error: String(error) }));
    }, SAVE_EVERY_MS);
  }

  /** Writes every checkpoint that moved, in one statement. */
  private save(): Promise<void> {
    this.saving = this.saving.catch(() => undefined).then(async () => {
      const rows = [...this.unsaved].map((f) => ({ name: f.reactor.name, position: f.position ?? '' }));
      this.unsaved.clear();
      if (rows.length === 0) return;
      await this.db.query(
        `insert into pm_checkpoints (name, position) select name, position from json_populate_recordset(null::pm_checkpoints, $1::json)
         on conflict (name) do update set position = greatest(pm_checkpoints.position, excluded.position)`,
        [JSON.stringify(rows)],
      );
    });
    return this.saving;
  }
}

function nextPause(previous: Pause | null, error: unknown): Pause {
  return { error: reasonText(String(error)), since: previous?.since ?? new Date(), tries: (previous?.tries ?? 0) + 1 };
}

const pauseDelay = (tries: number) => Math.min(MAX_PAUSE_BACKOFF_MS, 250 * 2 ** tries);
