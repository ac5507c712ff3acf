import type { SqlClient, SqlExecutor } from '../src/db/sql-client.js';
import { subscribeToAll, type Subscription } from '../src/eventstore/catch-up-subscription.js';
import type { EventStore, RecordedEvent } from '../src/eventstore/port.js';
import { CHECKPOINTS_DDL, type Projector } from './projector.js';
import { sql } from './sql-text.js';

/** Applies a batch to every projector still behind it, and moves their checkpoints, in one transaction. */
export async function applyBatch(tx: SqlExecutor, projectors: readonly Projector[], batch: readonly RecordedEvent[]) {
  if (batch.length === 0) return;
  const { rows } = await tx.query<{ projector: string; position: string }>(
    'select projector, position from proj_checkpoints for update',
  );
  const checkpoints = new Map(rows.map((r) => [r.projector, r.position]));
  const statements: string[] = [];
  for (const projector of projectors) {
    const checkpoint = checkpoints.get(projector.name) ?? '';
    for (const event of batch) if (event.position > checkpoint) statements.push(...projector.apply(event));
  }
  const last = batch[batch.length - 1]!.position;
  statements.push(
    sql`update proj_checkpoints set position = greatest(position, ${last})
        where projector in (` + projectors.map((p) => sql`${p.name}`).join(', ') + ')',
  );
  await tx.exec(statements.join(';\n'));
}

async function resetProjector(tx: SqlExecutor, projector: Projector) {
  for (const table of projector.tables) await tx.exec(`drop table if exists ${table} cascade`);
  await tx.exec(projector.ddl);
  await tx.exec(
    sql`insert into proj_checkpoints (projector, version, position) values (${projector.name}, ${projector.version}, '')
        on conflict (projector) do update set version = excluded.version, position = ''`,
  );
}

/** Creates missing read models and rebuilds those whose projector version changed; returns the lowest checkpoint. */
export async function installProjectors(db: SqlClient, projectors: readonly Projector[]): Promise<string | null> {
  await db.exec(CHECKPOINTS_DDL);
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ projector: string; version: number; position: string }>(
      'select projector, version, position from proj_checkpoints',
    );
    const known = new Map(rows.map((r) => [r.projector, r]));
    let lowest: string | null = null;
    for (const projector of projectors) {
      const row = known.get(projector.name);
      if (!row || row.version !== projector.version) await resetProjector(tx, projector);
      else await tx.exec(projector.ddl);
      const position = row && row.version === projector.version ? row.position : '';
      if (lowest === null || position < lowest) lowest = position;
    }
    return lowest === '' ? null : lowest;
  });
}

/** Drops every read model and replays the whole log into it. */
export async function rebuildProjections(db: SqlClient, store: EventStore, projectors: readonly Projector[]) {
  await db.exec(CHECKPOINTS_DDL);
  await db.transaction(async (tx) => {
    for (const projector of projectors) await resetProjector(tx, projector);
  });
  let after: string | null = null;
  let events = 0;
  for (;;) {
    const batch = await store.readAll({ after, maxCount: 2000 });
    if (batch.length === 0) return { events };
    await db.transaction((tx) => applyBatch(tx, projectors, batch));
    events += batch.length;
    after = batch[batch.length - 1]!.position;
  }
}

/** Keeps the read models following `$all`, and lets writers wait until their events are visible. */
export class ProjectionRunner {
  private subscription: Subscription | null = null;
  private reached: string | null = null;
  private waiters: { position: string; resolve: () => void }[] = [];
  private listeners: ((batch: readonly RecordedEvent[]) => void)[] = [];

  constructor(
    private readonly db: SqlClient,
    private readonly store: EventStore,
    private readonly projectors: readonly Projector[],
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  get position(): string | null {
    return this.reached;
  }

  async start(): Promise<void> {
    this.reached = await installProjectors(this.db, this.projectors);
    this.subscription = await subscribeToAll(
      this.store,
      { from: this.reached, batchSize: 1000, onError: this.onError },
      async (batch) => {
        await this.db.transaction((tx) => applyBatch(tx, this.projectors, batch));
        this.advance(batch[batch.length - 1]!.position);
        for (const listener of this.listeners) listener(batch);
      },
    );
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }

  /** Resolves when every event in the store at the time of the call is in the read models. */
  async caughtUp(): Promise<void> {
    for (;;) {
      const next = await this.store.readAll({ after: this.reached, maxCount: 1000 });
      if (next.length === 0) return;
      await this.waitFor(next[next.length - 1]!.position, 60_000);
    }
  }

  /** Process managers that act on the read models hear of each applied batch. */
  onApplied(listener: (batch: readonly RecordedEvent[]) => void): void {
    this.listeners.push(listener);
  }

  /** Resolves once every read model includes `position` (or after `timeoutMs`, whichever is first). */
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

  private advance(position: string) {
    this.reached = position;
    const ready = this.waiters.filter((w) => w.position <= position);
    this.waiters = this.waiters.filter((w) => w.position > position);
    for (const waiter of ready) waiter.resolve();
  }
}
