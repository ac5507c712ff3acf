import type { SqlClient, SqlExecutor } from '../src/db/sql-client.js';
import { subscribeToAll, type Subscription } from '../src/eventstore/catch-up-subscription.js';
import type { EventStore, RecordedEvent } from '../src/eventstore/port.js';
import { BatchWriter, type Statement } from './batch-writer.js';
import { CHECKPOINTS_DDL, type Projector } from './projector.js';
import { sql, STANDARD_STRINGS } from './sql-text.js';

function checkpointUpdate(projectors: readonly Projector[], position: string): string {
  return (
    sql`update proj_checkpoints set position = greatest(position, ${position}) where projector in (` +
    projectors.map((p) => sql`${p.name}`).join(', ') +
    ')'
  );
}

/** The statements that apply a batch to every projector still behind it and move their checkpoints. Pure. */
function batchStatements(
  projectors: readonly Projector[],
  batch: readonly RecordedEvent[],
  checkpoints: ReadonlyMap<string, string>,
): Statement[] {
  const out = new BatchWriter();
  out.sql(STANDARD_STRINGS);
  for (const projector of projectors) {
    const checkpoint = checkpoints.get(projector.name) ?? '';
    projector.applyBatch(checkpoint === '' ? batch : batch.filter((e) => e.position > checkpoint), out);
  }
  out.sql(checkpointUpdate(projectors, batch[batch.length - 1]!.position));
  return out.statements();
}

async function run(tx: SqlExecutor, statements: readonly Statement[]) {
  for (const { text, params } of statements) {
    if (params.length) await tx.query(text, params as string[]);
    else await tx.exec(text);
  }
}

/** Applies a batch, and moves the checkpoints, in one transaction; safe against a concurrent runner. */
export async function applyBatch(tx: SqlExecutor, projectors: readonly Projector[], batch: readonly RecordedEvent[]) {
  if (batch.length === 0) return;
  const { rows } = await tx.query<{ projector: string; position: string }>(
    'select projector, position from proj_checkpoints for update',
  );
  await run(tx, batchStatements(projectors, batch, new Map(rows.map((r) => [r.projector, r.position]))));
}

async function resetProjector(tx: SqlExecutor, projector: Projector, withIndexes = true) {
  for (const table of projector.tables) await tx.exec(`drop table if exists ${table} cascade`);
  await tx.exec(projector.ddl);
  if (withIndexes && projector.indexes) await tx.exec(projector.indexes);
  await tx.exec(
    sql`insert into proj_checkpoints (projector, version, position) values (${projector.name}, ${projector.version}, '')
        on conflict (projector) do update set version = excluded.version, position = ''`,
  );
}

/** Creates missing read models and rebuilds those whose projector version changed; returns the lowest checkpoint. */
async function installProjectors(db: SqlClient, projectors: readonly Projector[]): Promise<string | null> {
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
      else await tx.exec(projector.ddl + (projector.indexes ?? ''));
      const position = row && row.version === projector.version ? row.position : '';
      if (lowest === null || position < lowest) lowest = position;
    }
    return lowest === '' ? null : lowest;
  });
}

/**
 * Drops every read model and replays the whole log into it. Read models are independent tables, so each
 * is written on its own chain of transactions (its own connection on a Postgres server), fed from one
 * read of the log; secondary indexes are built once at the end.
 */
export async function rebuildProjections(db: SqlClient, store: EventStore, projectors: readonly Projector[]) {
  await db.exec(CHECKPOINTS_DDL);
  await db.transaction(async (tx) => {
    for (const projector of projectors) await resetProjector(tx, projector, false);
  });
  const lanes = new Map<Projector, Promise<void>>(projectors.map((p) => [p, Promise.resolve()]));
  const read = (after: string | null) => store.readAll({ after, maxCount: 5000 });
  let next = read(null);
  let events = 0;
  try {
    for (;;) {
      const batch = await next;
      if (batch.length === 0) break;
      next = read(batch[batch.length - 1]!.position);
      for (const projector of projectors) {
        const statements = batchStatements([projector], batch, new Map());
        await lanes.get(projector);
        lanes.set(projector, db.transaction((tx) => run(tx, statements)));
      }
      events += batch.length;
    }
  } catch (error) {
    await Promise.allSettled([...lanes.values(), next]);
    throw error;
  }
  await Promise.all(
    projectors.map(async (projector) => {
      await lanes.get(projector);
      if (projector.indexes) await db.exec(projector.indexes);
    }),
  );
  return { events };
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

  /** Changes whenever the read models may have changed wholesale (start, rebuild). */
  epoch = 0;

  async start(): Promise<void> {
    this.epoch++;
    this.reached = await installProjectors(this.db, this.projectors);
    this.subscription = await subscribeToAll(
      this.store,
      { from: this.reached, batchSize: 1000, onError: this.onError },
      async (batch) => {
        await this.db.transaction((tx) => applyBatch(tx, this.projectors, batch));
        // Listeners (caches, process managers) hear of a batch before any writer waiting for it resumes.
        for (const listener of this.listeners) listener(batch);
        this.advance(batch[batch.length - 1]!.position);
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

  /** Process managers that act on the read models hear of each applied batch; returns the unsubscribe. */
  onApplied(listener: (batch: readonly RecordedEvent[]) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
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
