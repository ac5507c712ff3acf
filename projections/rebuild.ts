import type { SqlClient, SqlExecutor } from '../src/db/sql-client.js';
import type { EventStore } from '../src/eventstore/port.js';
import { runStatements } from './apply.js';
import { parkStatement } from '../src/catch-up/parking.js';
import type { Projector } from './projector.js';
import { RebuildWriter } from './rebuild-writer.js';
import { sql } from './sql-text.js';

/** Where new tables are built; nothing that serves has it on its search path. */
const NEXT = 'slipway_rebuild_next';
/** Where the replaced tables wait, for the moment of the swap, to be dropped. */
const OLD = 'slipway_rebuild_old';
/**
 * Events per transaction. On PGlite every request waits for the batch being applied (one connection, on
 * the event loop's thread), so batches are small there; a Postgres server serves on other connections.
 */
const batchSizeOf = (db: SqlClient) => (db.kind === 'pglite' ? 500 : 5000);

export interface RebuildProgress {
  phase: 'replaying' | 'catching-up' | 'swapping' | 'done';
  events: number;
  /** Events in the store when the rebuild started, when the store can count them. */
  total: number | null;
  perSecond: number;
  secondsLeft: number | null;
}

export interface RebuildResult {
  projectors: string[];
  events: number;
  ms: number;
  /** The longest time live applies were held for the swap. */
  swapMs: number;
  parked: number;
}

export interface RebuildDeps {
  db: SqlClient;
  store: EventStore;
  projectors: readonly Projector[];
  liveSchema: string;
  /** Runs `fn` while the live runner applies nothing. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  onProgress(progress: RebuildProgress): void;
  onSwapped(position: string | null): void;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const onPath = (tx: SqlExecutor, schema: string) => tx.query(`select set_config('search_path', $1, true)`, [ident(schema)]);

/**
 * Blue-green rebuild: replays the log into new tables in a schema of their own while the live tables keep
 * serving and following the log, catches up to the head, then in one transaction moves the live tables out
 * and the new ones in (with their checkpoints and parked events). Readers see the old tables or the new,
 * never a half-built one. The old tables are dropped afterwards.
 */
export async function rebuildBlueGreen(deps: RebuildDeps): Promise<RebuildResult> {
  const { db, store, projectors } = deps;
  const batchSize = batchSizeOf(db);
  const started = performance.now();
  const total = store.countAll ? await store.countAll() : null;
  await db.exec(`drop schema if exists ${NEXT} cascade; drop schema if exists ${OLD} cascade; create schema ${NEXT}`);
  // One short transaction per projector, so requests on PGlite's one connection go between them.
  const perProjector = async (ddl: (p: Projector) => string | undefined) => {
    for (const p of projectors) {
      const text = ddl(p);
      if (text)
        await db.transaction(async (tx) => {
          await onPath(tx, NEXT);
          await tx.exec(text);
        });
    }
  };
  const createIndexes = () => perProjector((p) => p.indexes);
  await perProjector((p) => p.ddl);

  let position: string | null = null;
  let events = 0;
  const report = (phase: RebuildProgress['phase']) => {
    const seconds = (performance.now() - started) / 1000;
    const perSecond = seconds > 0 ? Math.round(events / seconds) : 0;
    const left = total === null ? null : Math.max(0, total - events);
    deps.onProgress({ phase, events, total, perSecond, secondsLeft: left === null || perSecond === 0 ? null : Math.round(left / perSecond) });
  };
  const writer = new RebuildWriter(db, projectors, NEXT, (batch) => {
    position = batch[batch.length - 1]!.position;
    events += batch.length;
  });
  /** Reads while the previous batches are written; returns, all written, when a read comes back short (near the head). */
  const follow = async (phase: RebuildProgress['phase']) => {
    let after = position;
    for (;;) {
      const batch = await store.readAll({ after, maxCount: batchSize });
      if (batch.length > 0) {
        after = batch[batch.length - 1]!.position;
        await writer.write(batch);
        report(phase);
      }
      if (batch.length < batchSize) break;
      // PGlite answers through microtasks only: without a turn of the event loop, requests would wait for the whole replay.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await writer.drain();
  };

  try {
    report('replaying');
    await follow('replaying');
    // An index is built faster once, after loading, than grown row by row: on PGlite, whose few buffers cannot
    // hold the audit log's indexes, growing them made the replay 2-3x slower. Requests wait for each
    // projector's index build (under a second for 100,000 events), not for the whole replay.
    await createIndexes();
    await follow('catching-up');
    report('swapping');
    let swapMs = 0;
    await deps.exclusive(async () => {
      const held = performance.now();
      // Live applies wait now: what was appended since the last read goes into the new tables first.
      await follow('swapping');
      await db.transaction(async (tx) => {
        const names = projectors.map((p) => p.name);
        await tx.query('select projector from proj_checkpoints where projector = any($1) for update', [names]);
        await tx.exec(`create schema if not exists ${OLD}`);
        for (const p of projectors) {
          for (const table of p.tables) {
            await tx.exec(`alter table if exists ${ident(deps.liveSchema)}.${table} set schema ${OLD}`);
            await tx.exec(`alter table ${NEXT}.${table} set schema ${ident(deps.liveSchema)}`);
          }
          await tx.exec(
            sql`insert into proj_checkpoints (projector, version, position) values (${p.name}, ${p.version}, ${position ?? ''})
                on conflict (projector) do update set version = excluded.version, position = excluded.position`,
          );
        }
        await tx.query('delete from proj_parked where projector = any($1)', [names]);
        await runStatements(tx, writer.parked.map(parkStatement));
        // What an operator skipped for good stays skipped: the rebuild met it again, but it is no news.
        await tx.query(
          `delete from proj_parked p using proj_skipped s
           where p.projector = any($1) and s.projector = p.projector and s.event_id = p.event_id`,
          [names],
        );
      });
      deps.onSwapped(position);
      swapMs = performance.now() - held;
    });
    report('done');
    return { projectors: projectors.map((p) => p.name), events, ms: Math.round(performance.now() - started), swapMs: Math.round(swapMs), parked: writer.parked.length };
  } finally {
    // Table by table, for the same reason as the DDL above.
    for (const schema of [OLD, NEXT]) {
      const { rows } = await db.query<{ t: string }>('select tablename as t from pg_tables where schemaname = $1', [schema]);
      for (const { t } of rows) await db.exec(`drop table if exists ${schema}.${ident(t)} cascade`);
      await db.exec(`drop schema if exists ${schema} cascade`);
    }
  }
}
