import type { SqlClient, SqlExecutor } from '../src/db/sql-client.js';
import type { Projector } from './projector.js';
import { ReadModelRebuildingError } from './read-model-errors.js';

/** The projectors that may not be read now, and the tables each of them names. */
export type Unreadable = () => readonly Projector[];

const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Statement text naming a table of an unreadable projector. Every query of every read model passes through
 * here, so a route, a command's check or a process manager can never run the new shape against the old,
 * frozen tables while a read model's new version is built.
 */
function refusal(text: string, unreadable: readonly Projector[]): ReadModelRebuildingError | null {
  for (const projector of unreadable) {
    if (projector.tables.some((table) => new RegExp(`\\b${escape(table)}\\b`, 'i').test(text))) return new ReadModelRebuildingError(projector.name);
  }
  return null;
}

function guarded<T extends SqlExecutor>(target: T, unreadable: Unreadable): SqlExecutor {
  const check = (text: string) => {
    const stale = unreadable();
    const refused = stale.length > 0 ? refusal(text, stale) : null;
    if (refused) throw refused;
  };
  return {
    query(text, params) {
      check(text);
      return target.query(text, params);
    },
    exec(text) {
      check(text);
      return target.exec(text);
    },
  };
}

/** The database as everything but the runner sees it: statements on a read model being rebuilt after an upgrade are refused (503). */
export function guardRebuildingReadModels(db: SqlClient, unreadable: Unreadable): SqlClient {
  const executor = guarded(db, unreadable);
  return {
    kind: db.kind,
    query: (text, params) => Promise.resolve().then(() => executor.query(text, params)),
    exec: (text) => Promise.resolve().then(() => executor.exec(text)),
    transaction: (fn) => db.transaction((tx) => fn(guarded(tx, unreadable))),
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    ...(db.bound ? { bound: db.bound.bind(db) } : {}),
    asleep: () => db.asleep(),
    touch: () => db.touch(),
    close: () => db.close(),
  };
}
