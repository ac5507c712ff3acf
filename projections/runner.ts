import type { SqlClient, SqlExecutor, SqlValue } from '../src/db/sql-client.js';
import { subscribeToAll, type Subscription } from '../src/eventstore/catch-up-subscription.js';
import type { EventStore, RecordedEvent } from '../src/eventstore/port.js';
import { applyIsolated, applyOne, fastStatements, ProjectorFaultError, runStatements, workOf } from './apply.js';
import { inlined, type Statement } from './batch-writer.js';
import { findParked, PARKED_DDL, parkStatement, recordedOf, skipParkedEvent, type Parking } from './parked.js';
import { CHECKPOINTS_DDL, type Projector } from './projector.js';
import { rebuildBlueGreen, type RebuildProgress, type RebuildResult } from './rebuild.js';
import { ASYNC_COMMIT, literal, sql } from './sql-text.js';

async function lockCheckpoints(tx: SqlExecutor): Promise<Map<string, string>> {
  const { rows } = await tx.query<{ projector: string; position: string }>('select projector, position from proj_checkpoints for update');
  return new Map(rows.map((r) => [r.projector, r.position]));
}

function checkpointUpdate(names: readonly string[], position: string): string {
  if (names.length === 0) return 'select 1';
  return sql`update proj_checkpoints set position = greatest(position, ${position}) where projector in (` + names.map((n) => sql`${n}`).join(', ') + ')';
}

/** A statement and, where it has several parameters, its text with them written in. */
type Bindable = Statement & { inlined?: string };

/** A statement with its parameters written into the text (a batch writer's have one, JSON), for a multi-statement round trip. */
const inline = (statement: Bindable) => statement.inlined ?? inlined(statement);

/** The statements as parts of a multi-statement text: prepared where the database keeps plans (PGlite), else inlined. */
async function bound(db: SqlClient, statements: readonly Bindable[]): Promise<string[]> {
  const texts = statements.map(inline);
  const withParams = statements.flatMap((s, i) => (s.params.length > 0 ? [i] : []));
  if (!db.bound || withParams.length === 0) return texts;
  const prepared = await db.bound(withParams.map((i) => ({ text: statements[i]!.text, params: statements[i]!.params as SqlValue[] }))).catch(() => []);
  withParams.forEach((index, k) => {
    if (prepared[k]) texts[index] = prepared[k];
  });
  return texts;
}

/** Moves every checkpoint to `to` and checks they all were at `from`, in one statement that locks them first. */
function moveCheckpoints(names: string[], from: string, to: string): Bindable {
  const text = (n: string, f: string, t: string) =>
    `with moved as (update proj_checkpoints set position = ${t} where projector = any(${n}::text[]) and position = ${f} returning 1)
     select 1 / (count(*) = cardinality(${n}::text[]))::int from moved`;
  return { text: text('$1', '$2', '$3'), params: [names, from, to], inlined: text(literal(`{${names.map((n) => `"${n}"`).join(',')}}`), literal(from), literal(to)) };
}

/**
 * The common case in one round trip: every live projector's checkpoint is where the previous batch ended.
 * The statements run as one implicit transaction that first checks exactly that (dividing by zero
 * otherwise, which undoes everything), so any surprise (a rebuild's swap, another process, an event that
 * does not parse or apply) falls back to the careful path. Returns false when it did not apply.
 */
async function applyInOneTrip(db: SqlClient, projectors: readonly Projector[], batch: readonly RecordedEvent[], after: string | null) {
  if (after === null || projectors.length === 0) return false;
  const work = projectors.map((projector) => ({ projector, events: batch }));
  const statements = fastStatements(work);
  if (!statements) return false;
  const move = moveCheckpoints(projectors.map((p) => p.name), after, batch[batch.length - 1]!.position);
  const texts = await bound(db, [move, ...statements.slice(1)]);
  return db.exec(['set standard_conforming_strings = on', ASYNC_COMMIT, ...texts].join(';\n')).then(
    () => true,
    () => false,
  );
}

/** Applies a batch to the projectors still behind it, parks what cannot be applied, moves the checkpoints. */
async function applyLive(db: SqlClient, projectors: readonly Projector[], batch: readonly RecordedEvent[], after: string | null): Promise<Parking[]> {
  if (await applyInOneTrip(db, projectors, batch, after)) return [];
  const last = batch[batch.length - 1]!.position;
  const names = projectors.map((p) => p.name);
  const attemptFast = await db
    .transaction(async (tx) => {
      const statements = fastStatements(workOf(projectors, batch, await lockCheckpoints(tx)));
      if (!statements) return false;
      await runStatements(tx, statements);
      await tx.exec(checkpointUpdate(names, last));
      return true;
    })
    .catch(() => false);
  if (attemptFast) return [];
  return db.transaction(async (tx) => {
    const parked = await applyIsolated(tx, workOf(projectors, batch, await lockCheckpoints(tx)));
    await runStatements(tx, parked.map(parkStatement));
    await tx.exec(checkpointUpdate(names, last));
    return parked;
  });
}

export type ProjectorState = 'live' | 'rebuilding' | 'stale' | 'paused';

/** Hears of each batch the live runner applied, and the position it follows (null: the start of the log). */
export type AppliedListener = (batch: readonly RecordedEvent[], after: string | null) => void;

/** Why the live read models stopped applying: a fault of the database or the connection, until it passes. */
export interface Pause {
  /** The projectors that met the fault (every live one when it came before any of them). */
  projectors: readonly string[];
  error: string;
  since: string;
  failures: number;
  retryAt: number;
}

const MAX_PAUSE_MS = 5_000;
const pauseMsAfter = (failures: number) => Math.min(MAX_PAUSE_MS, 250 * 2 ** (failures - 1));

/** Keeps the read models following `$all`, rebuilds them beside the live ones, and lets writers wait until their events are visible. */
export class ProjectionRunner {
  private subscription: Subscription | null = null;
  /** The lowest checkpoint of the live projectors: what every live read model includes (null: nothing yet). */
  private reached: string | null = null;
  /** Each projector's checkpoint as this process knows it ('' for none), live or not. */
  private checkpoints = new Map<string, string>();
  private waiters: { position: string; resolve: () => void }[] = [];
  private listeners: AppliedListener[] = [];
  /** Where the live subscription's next batch starts (exclusive). */
  private followed: string | null = null;
  /** Live applies and swaps take turns. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Projectors whose version changed: their old tables serve, frozen, until the rebuild swaps new ones in. */
  private stale = new Set<string>();
  private rebuilding: { names: Set<string>; progress: RebuildProgress | null; done: Promise<RebuildResult> } | null = null;
  private liveSchema = 'public';
  private paused: Pause | null = null;
  private stopping: { signal: Promise<void>; stop: () => void } | null = null;
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
    this.paused = null;
    let stopping = () => undefined as void;
    this.stopping = { signal: new Promise<void>((resolve) => (stopping = resolve)), stop: () => stopping() };
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
    this.followed = this.reached;
    // In a store that sleeps, only this process writes: its fallback poll has nothing to find while it sleeps.
    const asleep = this.store.kind === 'postgres' ? () => this.db.asleep() : undefined;
    this.subscription = await subscribeToAll(this.store, { from: this.reached, batchSize: 1000, onError: this.onError, asleep }, async (batch) => {
      await this.pauseOver();
      await this.exclusive(() => this.applyBatch(batch));
    });
    if (this.stale.size > 0) {
      const names = [...this.stale];
      void this.rebuild(names).catch((error: unknown) => this.onError(error));
    }
  }

  private async applyBatch(batch: readonly RecordedEvent[]) {
    this.db.touch();
    const after = this.followed;
    const live = this.liveProjectors();
    let parked: Parking[];
    try {
      parked = await applyLive(this.db, live, batch, after);
    } catch (error) {
      // Nothing was applied and nothing parked: the same batch is tried again once the pause is over.
      this.pause(error, live);
      throw error;
    }
    this.paused = null;
    if (parked.length > 0) this.parkedRows += parked.length;
    for (const p of parked) this.onParked(p);
    const last = batch[batch.length - 1]!.position;
    this.followed = last;
    for (const p of live) if ((this.checkpoints.get(p.name) ?? '') < last) this.checkpoints.set(p.name, last);
    // Listeners (caches, process managers) hear of a batch before any writer waiting for it resumes.
    for (const listener of this.listeners) listener(batch, after);
    this.advance();
  }

  private pause(error: unknown, live: readonly Projector[]) {
    const failures = (this.paused?.failures ?? 0) + 1;
    const projectors = error instanceof ProjectorFaultError && error.projector ? [error.projector] : live.map((p) => p.name);
    this.paused = {
      projectors,
      error: error instanceof Error ? error.message : String(error),
      since: this.paused?.since ?? new Date().toISOString(),
      failures,
      retryAt: Date.now() + pauseMsAfter(failures),
    };
  }

  /** Waits out the pause after a database fault (a stop ends the wait). */
  private async pauseOver() {
    const wait = this.paused ? this.paused.retryAt - Date.now() : 0;
    if (wait <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, wait))), this.stopping?.signal]);
    clearTimeout(timer);
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
    const { rows } = await this.db.query<{ n: number }>(`select count(*)::int as n from proj_parked where projector not like 'process-manager:%'`);
    this.parkedRows = rows[0]!.n;
  }

  async stop(): Promise<void> {
    this.stopping?.stop();
    await this.subscription?.stop();
    this.subscription = null;
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
    if (this.paused?.projectors.includes(name)) return { state: 'paused', error: this.paused.error };
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

  /**
   * The first event of the write that ended at `position` that a read model parked instead of applying, if
   * any: the event at `position`, or an earlier one of the same request (same correlation id, as the audit
   * history records it). Costs nothing while no read model has parked anything.
   */
  async parkedOfWrite(position: string | null): Promise<{ projector: string; eventId: string; error: string } | null> {
    if (position === null || this.parkedRows === 0) return null;
    // The same request id and the same actor: a client choosing another's X-Request-Id never sees its parked events.
    const sameWrite = `p.position = $1 or (p.metadata->>'correlationId', p.metadata->>'actor') = (select correlation_id, actor from rm_audit_log where position = $1)`;
    const find = (condition: string) =>
      this.db.query<{ projector: string; event_id: string; error: string }>(
        `select p.projector, p.event_id, p.error from proj_parked p
         where p.projector not like 'process-manager:%' and p.position <= $1 and (${condition}) order by p.position limit 1`,
        [position],
      );
    // Without the audit read model (a runner of some projectors only), the write's own last event still counts.
    const { rows } = await find(sameWrite).catch(() => find('p.position = $1'));
    return rows[0] ? { projector: rows[0].projector, eventId: rows[0].event_id, error: rows[0].error } : null;
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

export class RebuildRunningError extends Error {
  constructor(readonly names: readonly string[]) {
    super(`a rebuild of ${names.join(', ')} is already running`);
  }
}

/** The read models did not include a write within the deadline: the write happened, the answer cannot show it yet. */
export class ReadModelBehindError extends Error {
  constructor(readonly waitedMs: number) {
    super(`the change was recorded, but the read models did not show it within ${waitedMs / 1000} s; read it again shortly (do not repeat the write without an Idempotency-Key)`);
  }
}
