import type { SqlClient } from '../db/sql-client.js';
import { startPgliteMaintenance } from '../db/pglite-maintenance.js';
import type { EventStore } from '../eventstore/port.js';
import { watchHorizon } from '../eventstore/postgres-horizon.js';
import type { Logger } from '../logger.js';

const PGLITE_MAINTENANCE_EVERY_MS = 15_000;

/** The database's own housekeeping; returns what stops it. */
export function startUpkeep({ db, store, log }: { db: SqlClient; store: EventStore; log: Logger }): () => Promise<void> {
  // Only a Postgres server has other sessions whose open transactions hold back the log's readers.
  const stopWatchingHorizon = db.kind === 'postgres' && store.kind === 'postgres' ? watchHorizon(db, log) : () => undefined;
  // A Postgres server has autovacuum; PGlite has none.
  const stopMaintenance =
    db.kind === 'pglite' ? startPgliteMaintenance(db, PGLITE_MAINTENANCE_EVERY_MS, (error) => log.warn('PGlite vacuum/analyze failed', { error: String(error) })) : async () => undefined;
  return async () => {
    stopWatchingHorizon();
    await stopMaintenance();
  };
}
