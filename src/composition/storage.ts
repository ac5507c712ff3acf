import { join } from 'node:path';
import { ALL_PROJECTORS } from '../../projections/all.js';
import { WriteParkedError } from '../../projections/read-model-errors.js';
import { guardRebuildingReadModels } from '../../projections/rebuilding-guard.js';
import { ProjectionRunner, ReadModelBehindError } from '../../projections/runner.js';
import type { Config } from '../config.js';
import { tighten } from '../data-dir.js';
import { lockDataDir } from '../db/data-dir-lock.js';
import { openPglite } from '../db/pglite-client.js';
import type { SqlClient } from '../db/sql-client.js';
import type { EventStore } from '../eventstore/port.js';
import { createPostgresEventStore } from '../eventstore/postgres-event-store.js';
import type { Logger } from '../logger.js';
import { createKeyring, type Keyring } from '../secrets/keyring.js';
import { loadMasterKey } from '../secrets/master-key.js';

/** The installation's database, event log, keys and read models: what every other module starts on. */
export interface Storage {
  /** Read models being rebuilt after an upgrade answer 503 through this; only the runner reads the raw one. */
  db: SqlClient;
  store: EventStore;
  keyring: Keyring;
  runner: ProjectionRunner;
  /** Waits until the read models include `position`; throws ReadModelBehindError if they do not in time. */
  settle(position: string | null): Promise<void>;
  unlock(): Promise<void> | void;
}

export interface StorageDeps {
  config: Config;
  log: Logger;
  /** Called if the installation lock is lost (its connection to the Postgres server broke). */
  onLockLost: (error: Error) => void;
}

// The pg and EventStoreDB clients are loaded only when configured: together they weigh ~40 MB of memory.
async function openDatabase(config: Config, onLockLost: (error: Error) => void): Promise<{ db: SqlClient; unlock: () => Promise<void> | void }> {
  if (config.databaseUrl) {
    const [{ openPostgres }, { lockInstallation }] = await Promise.all([import('../db/pg-client.js'), import('../db/installation-lock.js')]);
    const lock = await lockInstallation(config.databaseUrl, onLockLost);
    try {
      return { db: await openPostgres(config.databaseUrl), unlock: () => lock.release() };
    } catch (error) {
      await lock.release();
      throw error;
    }
  }
  const unlock = lockDataDir(config.dataDir);
  try {
    const pgdata = join(config.dataDir, 'pgdata');
    const db = await openPglite(pgdata, config.storeSleepAfterMs);
    // PGlite's initdb writes its files 0666 whatever the umask; what it creates later honours it.
    tighten(pgdata);
    return { db, unlock };
  } catch (error) {
    unlock();
    throw error;
  }
}

export async function startStorage({ config, log, onLockLost }: StorageDeps): Promise<Storage> {
  const { db: database, unlock } = await openDatabase(config, onLockLost);
  const store = config.eventStoreUrl
    ? await (await import('../eventstore/eventstoredb-event-store.js')).createEventStoreDbEventStore(config.eventStoreUrl)
    : await createPostgresEventStore(database);
  const keyring = await createKeyring(database, loadMasterKey(config.dataDir, config.secretKey).key);
  const runner = new ProjectionRunner(
    database,
    store,
    ALL_PROJECTORS,
    (error) => log.error('projection batch failed', { error: String(error) }),
    (parked) => log.error('a read model parked an event it cannot apply', { projector: parked.projector, event: parked.event.id, type: parked.event.type, error: parked.error }),
  );
  await runner.start();
  return {
    db: guardRebuildingReadModels(database, runner.unreadable),
    store,
    keyring,
    runner,
    async settle(position) {
      if (!(await runner.waitFor(position, config.settleTimeoutMs))) throw new ReadModelBehindError(config.settleTimeoutMs);
      // A parked event is not an applied one: the answer would not show the write.
      const parked = await runner.parkedOfWrite(position);
      if (parked) throw new WriteParkedError(parked.projector, parked.eventId, parked.error);
    },
    unlock,
  };
}
