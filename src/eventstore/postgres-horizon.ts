import type { SqlClient } from '../db/sql-client.js';
import type { Logger } from '../logger.js';

const THIS_DATABASE = '(select oid from pg_database where datname = current_database())';

/**
 * The oldest transaction of this database still open in the statement's snapshot (its xmax when none is):
 * readers of `$all` see events only below it, since a later commit may carry a smaller global position.
 * Transaction ids are the whole server's, and so is pg_snapshot_xmin: a long transaction in another database
 * on a shared server would hold back every read model here. A running transaction is left out only when
 * pg_stat_activity shows it in another database; one it no longer shows (it ended after the snapshot was
 * taken, or it is prepared) still counts, so the horizon never passes a commit this snapshot cannot see.
 * pg_stat_get_activity is the view's function without the view's joins: a read costs 0.1 ms more, not 0.6.
 */
export const READ_HORIZON = `(select coalesce(min(x), pg_snapshot_xmax(pg_current_snapshot()))
  from pg_snapshot_xip(pg_current_snapshot()) x
  where not exists (select 1 from pg_stat_get_activity(null) a
    where a.backend_xid = xid(x) and a.datid <> ${THIS_DATABASE}))`;

/**
 * The read horizon of the event log on a Postgres server: one long transaction anywhere in this database
 * holds back every read model and process manager, and writes wait for them until they answer 503.
 */
export interface Horizon {
  /** Seconds the oldest transaction with an id has been open; 0 when none is. */
  heldSeconds: number;
  /** Committed events the readers cannot see yet because of it (counted up to a cap). */
  eventsHeldBack: number;
  /** Who holds it: the server's process id of that session and what it calls itself. */
  holder: { pid: number; application: string; client: string | null } | null;
}

/** Longer than this, with events waiting behind it, and the horizon is reported as held. */
export const HORIZON_WARN_AFTER_SECONDS = 5;
const WATCH_EVERY_MS = 1000;
const COUNT_CAP = 10_000;

export async function readHorizon(db: SqlClient): Promise<Horizon> {
  const { rows } = await db.query<{ seconds: number | null; pid: number | null; application: string | null; client: string | null; held_back: number }>(
    `with oldest as (
       select pid, application_name, client_addr::text as client, extract(epoch from now() - xact_start)::float8 as seconds
       from pg_stat_activity where backend_xid is not null and pid <> pg_backend_pid()
         and datid = ${THIS_DATABASE} order by xact_start limit 1)
     select o.seconds, o.pid, o.application_name as application, o.client,
       (select count(*)::int from (select 1 from es_events where transaction_id >= ${READ_HORIZON} limit ${COUNT_CAP}) e) as held_back
     from (select 1) one left join oldest o on true`,
  );
  const row = rows[0]!;
  return {
    heldSeconds: row.seconds === null ? 0 : Math.round(row.seconds * 10) / 10,
    eventsHeldBack: row.held_back,
    holder: row.pid === null ? null : { pid: row.pid, application: row.application ?? '', client: row.client },
  };
}

/** What an operator is told while the horizon is held, or null when it is not. */
export function horizonWarning(h: Horizon): string | null {
  if (h.heldSeconds <= HORIZON_WARN_AFTER_SECONDS || h.eventsHeldBack === 0 || !h.holder) return null;
  return (
    `a transaction open for ${h.heldSeconds} s (server process ${h.holder.pid}${h.holder.application ? `, ${h.holder.application}` : ''}) holds back ` +
    `${h.eventsHeldBack}${h.eventsHeldBack === COUNT_CAP ? '+' : ''} events from the read models and process managers until it ends`
  );
}

/** Logs once when the horizon starts being held and once when it moves again; returns its stop. */
export function watchHorizon(db: SqlClient, log: Logger): () => void {
  let held = false;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    readHorizon(db)
      .then((h) => {
        const warning = horizonWarning(h);
        if (warning && !held) log.warn('a long transaction holds back the read models and process managers', { detail: warning, heldSeconds: h.heldSeconds, eventsHeldBack: h.eventsHeldBack, holder: h.holder });
        else if (!warning && held) log.info('the read horizon moves again: the read models catch up', { heldSeconds: h.heldSeconds });
        held = warning !== null;
      })
      // A database that does not answer shows in the requests and in health; this watch only reports the horizon.
      .catch(() => undefined)
      .finally(() => (running = false));
  }, WATCH_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
