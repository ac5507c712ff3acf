import type { SqlClient } from './sql-client.js';

/**
 * PGlite runs no autovacuum: without it no table is ever analysed or vacuumed, plans stay those of an
 * empty database, and they get slower with every event (an append took 0.3 ms with statistics and
 * 4.8 ms without, after 20,000 events in one stream). This does autovacuum's job with its default
 * thresholds, one table per statement, so requests get in between.
 */
export interface TableActivity {
  table: string;
  liveRows: number;
  deadRows: number;
  modifiedSinceAnalyze: number;
  neverAnalysed: boolean;
}

/** Postgres's own defaults (autovacuum_*_threshold and *_scale_factor). */
const ANALYZE = { base: 50, scale: 0.1 };
const VACUUM = { base: 50, scale: 0.2 };

export type Upkeep = 'vacuum analyze' | 'analyze' | null;

/** What autovacuum would do to a table now. */
export function upkeepOf(t: TableActivity): Upkeep {
  // Unlike autovacuum, no vacuum for inserts alone: the log only grows, and a vacuum of it would hold
  // PGlite's one connection for long (0.3 s at 15,000 events) to set visibility bits no query needs.
  const vacuum = t.deadRows > VACUUM.base + VACUUM.scale * t.liveRows;
  const analyze = t.modifiedSinceAnalyze > ANALYZE.base + ANALYZE.scale * t.liveRows || (t.neverAnalysed && t.liveRows + t.modifiedSinceAnalyze > 0);
  if (vacuum) return 'vacuum analyze';
  return analyze ? 'analyze' : null;
}

export async function tableActivity(db: SqlClient): Promise<TableActivity[]> {
  // The counters of the last second are still the backend's own until it reports them.
  await db.query('select pg_stat_force_next_flush()');
  await db.query('select pg_stat_clear_snapshot()');
  const { rows } = await db.query<{ table: string; live: string; dead: string; modified: string; never: boolean }>(
    `select quote_ident(schemaname) || '.' || quote_ident(relname) as table, n_live_tup::text as live, n_dead_tup::text as dead,
            n_mod_since_analyze::text as modified, last_analyze is null as never
     from pg_stat_user_tables where schemaname = current_schema()`,
  );
  return rows.map((r) => ({
    table: r.table,
    liveRows: Number(r.live),
    deadRows: Number(r.dead),
    modifiedSinceAnalyze: Number(r.modified),
    neverAnalysed: r.never,
  }));
}

/** One pass: vacuums and analyses the tables that need it; returns what it did. */
export async function maintainTables(db: SqlClient): Promise<{ table: string; upkeep: Exclude<Upkeep, null> }[]> {
  const done: { table: string; upkeep: Exclude<Upkeep, null> }[] = [];
  for (const activity of await tableActivity(db)) {
    const upkeep = upkeepOf(activity);
    if (!upkeep) continue;
    await db.exec(`${upkeep} ${activity.table}`);
    done.push({ table: activity.table, upkeep });
  }
  return done;
}

/**
 * Runs `maintainTables` now and then every `everyMs` after the last pass ended, until stopped; a failing pass
 * is reported. A sleeping store is left asleep: nothing was written since it fell asleep.
 */
export function startPgliteMaintenance(db: SqlClient, everyMs: number, onError: (error: unknown) => void): () => Promise<void> {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const pass = () => {
    running = (db.asleep() ? Promise.resolve() : maintainTables(db)).then(
      () => undefined,
      (error: unknown) => onError(error),
    );
    void running.then(() => {
      if (!stopped) timer = setTimeout(pass, everyMs).unref();
    });
  };
  pass();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
