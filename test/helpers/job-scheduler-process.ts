/**
 * A second process with a job scheduler of its own on a Slipway's Postgres store (its event log and read models),
 * beside the server's: what two Slipway processes sharing one store would do at one due time. The installation lock
 * lets one Slipway run an installation, so this process runs the scheduler alone, on the same code.
 *
 * argv: <database url> <data dir> <plan at, ms> <act at, ms>. It plans at the first time, says `planned`, waits for a
 * line on stdin, acts at the second time and prints each outcome as a JSON line.
 */
import { once } from 'node:events';
import { commandContexts } from '../../src/composition/command-contexts.js';
import { openPostgres } from '../../src/db/pg-client.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import { createLogger } from '../../src/logger.js';
import { JobScheduler } from '../../src/processes/job/job-scheduler.js';
import { createKeyring } from '../../src/secrets/keyring.js';
import { loadMasterKey } from '../../src/secrets/master-key.js';

const [url, dataDir, planAt, actAt] = process.argv.slice(2) as [string, string, string, string];
const db = await openPostgres(url, 2);
const store = await createPostgresEventStore(db);
const keyring = await createKeyring(db, loadMasterKey(dataDir, undefined).key);
const clock = { now: Number(planAt) };
const scheduler = new JobScheduler({ cmd: commandContexts(store, keyring)('system:job-scheduler'), db }, { now: () => clock.now }, createLogger(true));
await scheduler.tick();
process.stdout.write('planned\n');
await once(process.stdin, 'data');
clock.now = Number(actAt);
for (const outcome of await scheduler.tick()) process.stdout.write(`${JSON.stringify(outcome)}\n`);
await scheduler.stop();
await store.close();
await db.close();
process.exit(0);
