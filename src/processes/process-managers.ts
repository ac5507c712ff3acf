import type { ProjectionRunner } from '../../projections/runner.js';
import { ReadModelRebuildingError } from '../../projections/read-model-errors.js';
import { CheckpointTable } from '../catch-up/checkpoint-table.js';
import { Follower, type Consumer } from '../catch-up/follower.js';
import { parkedNameOf } from '../catch-up/parking.js';
import type { FollowerStatus } from '../catch-up/status.js';
import { isDatabaseFault } from '../db/database-faults.js';
import type { SqlClient } from '../db/sql-client.js';
import type { EventStore, RecordedEvent } from '../eventstore/port.js';
import type { Logger } from '../logger.js';
import type { Reactor } from './reactor.js';

const BATCH = 500;
/** Batches the runner just applied, kept to spare a read of the log when a process manager is right behind. */
const RECENT_BATCHES = 16;
/**
 * While the store sleeps (pglite-sleep.ts) nothing has been written, so a reconcile has only what Docker and
 * time bring: it runs this often, and when a reactor says time has made work due (a backup schedule).
 */
const ASLEEP_RECONCILE_EVERY_MS = 10 * 60_000;

/** A process manager as health shows it. */
export type ProcessManagerStatus = FollowerStatus;

export interface ProcessManagerOptions {
  /** How often each reactor's reconcile runs (and the log is looked at even without a wake-up). */
  reconcileEveryMs: number;
}

/**
 * Feeds each process manager the log from its own checkpoint in `pm_checkpoints` through the catch-up
 * engine, only as far as the read models have got (handlers read them). The runner's in-memory notice only
 * wakes them; what a reactor sees is always read from the log, so an event applied any other way (a
 * rebuild, another process) reaches it too. Each goes at its own pace: a slow proxy reload does not hold
 * back an abort, and a reactor that fails a batch gets it again later while the others go on.
 */
export class ProcessManagers {
  private followers: Follower[] = [];
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private reconciling: Promise<void> = Promise.resolve();
  private reconciledAt = 0;
  private recent: { after: string | null; batch: readonly RecordedEvent[] }[] = [];
  private readonly checkpointTable: CheckpointTable;

  constructor(
    private readonly db: SqlClient,
    private readonly store: EventStore,
    private readonly runner: ProjectionRunner,
    private readonly reactors: readonly Reactor[],
    private readonly options: ProcessManagerOptions,
    private readonly log: Logger,
  ) {
    this.checkpointTable = new CheckpointTable(db, (error) => log.warn('could not store process manager checkpoints', { error: String(error) }));
  }

  /** Loads the checkpoints; a reactor seen for the first time starts at the head (its reconcile covers the past). */
  async start(): Promise<void> {
    const stored = await this.checkpointTable.load();
    const head = this.runner.position;
    for (const reactor of this.reactors) {
      const from = stored.has(reactor.name) ? stored.get(reactor.name) || null : head;
      this.followers.push(this.followerOf(reactor, from));
      if (!stored.has(reactor.name)) this.checkpointTable.moved(reactor.name, from);
    }
    await this.checkpointTable.save();
    this.unsubscribe = this.runner.onApplied((batch, after) => {
      this.recent.push({ after, batch });
      if (this.recent.length > RECENT_BATCHES) this.recent.shift();
      this.wake();
    });
    this.reconcileAll();
    for (const follower of this.followers) await follower.start();
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
    await Promise.all(this.followers.map((f) => f.stop()));
    await this.reconciling;
    await this.checkpointTable.close();
  }

  /** Every process manager's checkpoint and whether a database fault pauses it, for health. */
  async checkpoints(): Promise<ProcessManagerStatus[]> {
    return this.followers.map((f) => f.status);
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

  private followerOf(reactor: Reactor, from: string | null): Follower {
    const consumer: Consumer = {
      name: reactor.name,
      consume: (events) => reactor.handle(events),
      blame: { isFault: (error) => this.databaseAtFault(error), db: this.db, parkAs: parkedNameOf(reactor.name) },
    };
    const name = reactor.name;
    return new Follower(consumer, {
      store: this.store,
      from,
      batchSize: BATCH,
      watchStore: false,
      pollMs: this.options.reconcileEveryMs,
      asleep: () => this.db.asleep(),
      horizon: () => this.runner.position,
      // The log is the source; a batch the runner has just applied, starting exactly there, is the same events.
      read: async (after, maxCount) => this.recent.find((r) => r.after === after)?.batch ?? (await this.store.readAll({ after, maxCount })),
      moved: (position) => this.checkpointTable.moved(name, position),
      report: {
        readFailed: (error) => this.log.warn('process managers could not read the log', { name, error: String(error) }),
        paused: (error, first) => {
          if (first) this.log.warn('a database fault pauses a process manager; it resumes when the database answers', { name, error: String(error) });
        },
        retried: (error, failures) => this.log.warn('process manager failed a batch; it is retried', { name, failures, error: String(error) }),
        resumed: () => this.log.info('a process manager resumed after a database fault', { name }),
        parked: ({ event, error }) => this.log.error('a process manager parked an event it cannot handle', { name, event: event.id, type: event.type, error }),
      },
    });
  }

  private wake() {
    if (this.stopped) return;
    for (const follower of this.followers) follower.wake();
  }

  private dueWhileAsleep(): boolean {
    return Date.now() - this.reconciledAt >= ASLEEP_RECONCILE_EVERY_MS || this.reactors.some((r) => r.dueWhileAsleep?.() === true);
  }

  private reconcileAll() {
    if (this.stopped) return;
    this.reconciledAt = Date.now();
    this.reconciling = this.reconciling.then(async () => {
      for (const reactor of this.reactors) {
        if (this.stopped) return;
        await reactor.reconcile?.().catch((error: unknown) => this.log.warn('process manager reconcile failed', { name: reactor.name, error: String(error) }));
      }
    });
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
}
