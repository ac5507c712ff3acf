import type { SqlClient } from '../src/db/sql-client.js';
import { Follower, type Consumer } from '../src/catch-up/follower.js';
import { countReadModelParked, findParked, findParkedOfWrite, PARKED_DDL, recordedOf, skipParkedEvent, type Parking } from '../src/catch-up/parking.js';
import type { Pause } from '../src/catch-up/pause.js';
import type { EventStore, RecordedEvent } from '../src/eventstore/port.js';
import { applyOne, ProjectorFaultError } from './apply.js';
import { applyLive } from './live-batch.js';
import { CHECKPOINTS_DDL, type Projector } from './projector.js';
import { rebuildBlueGreen, type RebuildProgress, type RebuildResult } from './rebuild.js';
import { RebuildRunningError } from './read-model-errors.js';
import { sql } from './sql-text.js';

export { ReadModelBehindError, RebuildRunningError } from './read-model-errors.js';

export type ProjectorState = 'live' | 'rebuilding' | 'stale' | 'paused';

/** Hears of each batch the live runner applied, and the position it follows (null: the start of the log). */
export type AppliedListener = (batch: readonly RecordedEvent[], after: string | null) => void;

/**
 * Keeps the read models following `$all` through the catch-up engine (one consumer: the live projectors,
 * a batch in one transaction), rebuilds them beside the live ones, and lets writers wait until their events
 * are visible.
 */
export class ProjectionRunner {
  private follower: Follower | null = null;
  /** The lowest checkpoint of the live projectors: what every live read model includes (null: nothing yet). */
  private reached: string | null = null;
  /** Each projector's checkpoint as this process knows it ('' for none), live or not. */
  private checkpoints = new Map<string, string>();
  private waiters: { position: string; resolve: () => void }[] = [];
  private listeners: AppliedListener[] = [];
  /** Live applies and swaps take turns. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Projectors whose version changed: their old tables serve, frozen, until the rebuild swaps new ones in. */
  private stale = new Set<string>();
  private rebuilding: { names: Set<string>; progress: RebuildProgress | null; done: Promise<RebuildResult> } | null = null;
  private liveSchema = 'public';
  /** Read-model rows in proj_parked, as last counted: settle looks for its write there only when some exist. */
  private parkedRows = 0;

  constructor(
    readonly db: SqlClient,
    readonly store: EventStore,
    readonly projectors: readonly Projector[],
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly onParked: (parked: Parking) => void = () => undefined,
  ) {}

  get position(): string | null {
    return this.reached;
  }

  /** Changes whenever the read models may have changed wholesale (start, swap after a rebuild). */
  epoch = 0;

  /** Creates what is missing; a projector whose version changed is rebuilt beside its frozen old tables. */
  async start(): Promise<void> {
    this.epoch++;
    await this.db.exec(CHECKPOINTS_DDL + PARKED_DDL);
    this.liveSchema = (await this.db.query<{ s: string }>('select current_schema() as s')).rows[0]!.s;
    this.stale = new Set();
    this.checkpoints = await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ projector: string; version: number; position: string }>('select projector, version, position from proj_checkpoints');
      const known = new Map(rows.map((r) => [r.projector, r]));
      const positions = new Map<string, string>();
      for (const projector of this.projectors) {
        const row = known.get(projector.name);
        // The new version's tables and indexes are built only in the rebuild's schema: its DDL may not fit the old tables.
        if (row && row.version !== projector.version) {
          this.stale.add(projector.name);
          positions.set(projector.name, row.position);
          continue;
        }
        await tx.exec(projector.ddl + (projector.indexes ?? ''));
        if (!row) await tx.exec(sql`insert into proj_checkpoints (projector, version, position) values (${projector.name}, ${projector.version}, '')`);
        positions.set(projector.name, row?.position ?? '');
      }
      return positions;
    });
    await this.countParked();
    this.reached = this.lowestLive();
    const consumer: Consumer = {
      name: 'read models',
      consume: (batch, after) => this.exclusive(() => this.applyBatch(batch, after)),
      // Every failure that reaches here is the database's: what an event cannot do is parked inside the batch.
      held: (error) => (error instanceof ProjectorFaultError && error.projector ? [error.projector] : this.liveProjectors().map((p) => p.name)),
      describe: (error) => (error instanceof Error ? error.message : String(error)),
    };
    this.follower = new Follower(consumer, {
      store: this.store,
      from: this.reached,
      batchSize: 1000,
      // In a store that sleeps, only this process writes: its fallback poll has nothing to find while it sleeps.
      asleep: this.store.kind === 'postgres' ? () => this.db.asleep() : undefined,
      report: { readFailed: this.onError, paused: this.onError },
    });
    await this.follower.start();
    if (this.stale.size > 0) {
      const names = [...this.stale];
      void this.rebuild(names).catch((error: unknown) => this.onError(error));
    }
  }

  /** A failure leaves nothing applied and nothing parked: the engine pauses and hands over the same batch again. */
  private async applyBatch(batch: readonly RecordedEvent[], after: string | null) {
    this.db.touch();
    const live = this.liveProjectors();
    const parked = await applyLive(this.db, live, batch, after);
    if (parked.length > 0) this.parkedRows += parked.length;
    for (const p of parked) this.onParked(p);
    const last = batch[batch.length - 1]!.position;
    for (const p of live) if ((this.checkpoints.get(p.name) ?? '') < last) this.checkpoints.set(p.name, last);
    // Listeners (caches, process managers) hear of a batch before any writer waiting for it resumes.
    for (const listener of this.listeners) listener(batch, after);
    this.advance();
  }

  /** Why the live read models do not apply now (a database fault, until it passes), if they do not. */
  get pause(): Pause | null {
    return this.follower?.pause ?? null;
  }

  /** The lowest checkpoint among the live projectors; null when one of them has applied nothing yet. */
  private lowestLive(): string | null {
    let lowest: string | null = null;
    for (const p of this.liveProjectors()) {
      const position = this.checkpoints.get(p.name) ?? '';
      if (lowest === null || position < lowest) lowest = position;
    }
    return lowest === '' ? null : lowest;
  }

  private async countParked() {
    this.parkedRows = await countReadModelParked(this.db);
  }

  async stop(): Promise<void> {
    await this.follower?.stop();
    await this.rebuilding?.done.catch(() => undefined);
  }

  private liveProjectors() {
    return this.projectors.filter((p) => !this.stale.has(p.name));
  }

  /** Runs `fn` while no batch is being applied. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.turn.then(fn);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /**
   * Rebuilds the named projectors (all when none are named) into new tables while the live ones keep
   * serving and following the log; swaps them in atomically once caught up. One rebuild at a time.
   */
  rebuild(names: readonly string[] = [], onProgress: (p: RebuildProgress) => void = () => undefined): Promise<RebuildResult> {
    const unknown = names.filter((n) => !this.projectors.some((p) => p.name === n));
    if (unknown.length > 0) return Promise.reject(new RangeError(`unknown projector: ${unknown.join(', ')}`));
    if (this.rebuilding) return Promise.reject(new RebuildRunningError([...this.rebuilding.names]));
    const selected = names.length === 0 ? this.projectors : this.projectors.filter((p) => names.includes(p.name));
    const state: NonNullable<ProjectionRunner['rebuilding']> = { names: new Set(selected.map((p) => p.name)), progress: null, done: Promise.resolve({} as RebuildResult) };
    state.done = rebuildBlueGreen({
      db: this.db,
      store: this.store,
      projectors: selected,
      liveSchema: this.liveSchema,
      exclusive: (fn) => this.exclusive(fn),
      onProgress: (p) => {
        state.progress = p;
        onProgress(p);
      },
      onSwapped: (position) => {
        for (const p of selected) {
          this.stale.delete(p.name);
          this.checkpoints.set(p.name, position ?? '');
        }
        this.epoch++;
        // The swap replaced these projectors' parked rows: settle looks until they are counted again.
        this.parkedRows = Math.max(this.parkedRows, 1);
        this.advance();
      },
    }).finally(() => {
      this.rebuilding = null;
      void this.countParked().catch(() => undefined);
    });
    this.rebuilding = state;
    return state.done;
  }

  /** Which projectors are being rebuilt or wait to be, and which are paused by a database fault (with the fault). */
  stateOf(name: string): { state: ProjectorState; error: string | null } {
    if (this.rebuilding?.names.has(name)) return { state: 'rebuilding', error: null };
    if (this.stale.has(name)) return { state: 'stale', error: null };
    const pause = this.pause;
    if (pause?.holds.includes(name)) return { state: 'paused', error: pause.error };
    return { state: 'live', error: null };
  }

  /** Projectors whose new version is still being built after an upgrade: their live tables have the old shape. */
  readonly unreadable = (): readonly Projector[] => (this.stale.size === 0 ? [] : this.projectors.filter((p) => this.stale.has(p.name)));

  get rebuildProgress(): RebuildProgress | null {
    return this.rebuilding?.progress ?? null;
  }

  /**
   * Retries a parked event. The last event of its stream (as far as the read model has applied) is applied
   * now; one whose stream has later events in the read model would land over newer data, so the read model
   * is rebuilt instead: the rebuild replays the log in order and its swap clears what then applies.
   */
  async retryParked(projectorName: string, eventId: string): Promise<'applied' | 'rebuilding' | 'not_parked'> {
    const projector = this.projectors.find((p) => p.name === projectorName);
    const outcome = await this.exclusive(async () => {
      const row = await findParked(this.db, projectorName, eventId);
      if (!row) return 'not_parked' as const;
      if (!projector) throw new Error(`${projectorName} is not a read model: its reconcile repairs from state what the event would have done; skip it`);
      const [next] = await this.store.readStream(row.stream_id, { fromRevision: Number(row.revision) + 1, maxCount: 1 });
      if (next && next.position <= (this.checkpoints.get(projectorName) ?? '')) {
        if (this.rebuilding) throw new RebuildRunningError([...this.rebuilding.names]);
        return 'rebuilding' as const;
      }
      await this.db.transaction(async (tx) => {
        await applyOne(tx, projector, recordedOf(row));
        await tx.query('delete from proj_parked where projector = $1 and event_id = $2', [projectorName, eventId]);
      });
      this.epoch++;
      return 'applied' as const;
    });
    // Started outside the turn: its swap takes a turn of its own.
    if (outcome === 'rebuilding') void this.rebuild([projectorName]).catch((error: unknown) => this.onError(error));
    await this.countParked();
    return outcome;
  }

  /** Gives up on a parked event for good, recording who and why; the event stays in the log (and the audit history). */
  async skipParked(projectorName: string, eventId: string, by: { actor: string; reason: string }): Promise<boolean> {
    const skipped = await skipParkedEvent(this.db, projectorName, eventId, by);
    await this.countParked();
    return skipped;
  }

  /** The first event of the write that ended at `position` a read model parked (see findParkedOfWrite); free while none is parked. */
  async parkedOfWrite(position: string | null): Promise<{ projector: string; eventId: string; error: string } | null> {
    if (position === null || this.parkedRows === 0) return null;
    return findParkedOfWrite(this.db, position);
  }

  /** Resolves when every event in the store at the time of the call is in the read models. */
  async caughtUp(): Promise<void> {
    for (;;) {
      const next = await this.store.readAll({ after: this.reached, maxCount: 1000 });
      if (next.length === 0) return;
      await this.waitFor(next[next.length - 1]!.position, 60_000);
    }
  }

  /** Caches and process managers hear of each applied batch (a wake-up: what they must not miss they read from the log). */
  onApplied(listener: AppliedListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** Resolves once every live read model includes `position` (or false after `timeoutMs`, whichever is first). */
  waitFor(position: string | null, timeoutMs = 10_000): Promise<boolean> {
    if (position === null || (this.reached !== null && this.reached >= position)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      const waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Moves `position` to the lowest live checkpoint and lets the writers waiting for it go. */
  private advance() {
    const position = this.lowestLive();
    this.reached = position;
    if (position === null) return;
    const ready = this.waiters.filter((w) => w.position <= position);
    this.waiters = this.waiters.filter((w) => w.position > position);
    for (const waiter of ready) waiter.resolve();
  }
}
