import { randomUUID } from 'node:crypto';
import pg from 'pg';
import t from 'tap';
import { ALL_PROJECTORS } from '../../projections/all.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { openPostgres } from '../../src/db/pg-client.js';
import type { RecordedEvent } from '../../src/eventstore/port.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import { createLogger } from '../../src/logger.js';
import { ProcessManagers } from '../../src/processes/process-managers.js';
import type { Reactor } from '../../src/processes/reactor.js';
import { newEvent } from '../helpers/new-event.js';
import { eventually } from '../helpers/net.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';

const projectCreated = (n: number) => newEvent('ProjectCreated', { name: `P${n}`, slug: `p-${n}-${randomUUID().slice(0, 8)}`, description: '' });

// The read models and the process managers follow the log through one engine (src/catch-up/): a database
// fault met while reading the log is the same pause for both kinds of consumer, visible where each one's
// health is read, and both resume by themselves when it passes; nothing is parked for it.
t.test('a database fault while reading the log pauses the read models and the process managers alike; both resume', { skip: requirePostgresServer() }, async (t) => {
  const database = await freshDatabase(serverUrl!);
  t.teardown(() => database.drop());
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  t.teardown(() => admin.end().catch(() => undefined));
  // Slipway's connections give up on a lock after 200 ms: a held lock is a fault of the database.
  await admin.query(`alter database ${new URL(database.url).pathname.slice(1)} set lock_timeout = '200ms'`);
  await admin.query('set lock_timeout = 0');

  const db = await openPostgres(database.url);
  const store = await createPostgresEventStore(db);
  const runner = new ProjectionRunner(db, store, ALL_PROJECTORS);
  await runner.start();
  t.teardown(async () => {
    await runner.stop();
    await db.close();
  });
  let position = '';
  for (let n = 0; n < 3; n++) position = (await store.append(`project-${randomUUID()}`, [projectCreated(n)], 'no_stream')).position;
  t.ok(await runner.waitFor(position, 30_000), 'the read models applied the events');

  // A process manager that has seen nothing yet: it must read the log from the start, not the runner's last batch.
  const seen: string[] = [];
  const reactor: Reactor = {
    name: 'reader',
    async handle(batch: readonly RecordedEvent[]) {
      seen.push(...batch.map((e) => e.id));
    },
  };
  await db.exec(`create table if not exists pm_checkpoints (name text primary key, position text collate "C" not null default '')`);
  await db.query(`insert into pm_checkpoints (name, position) values ('reader', '')`);

  // Another session holds the log's table: every read of `$all` fails with "lock timeout" while the rest of
  // the database answers.
  await admin.query('begin');
  await admin.query('lock table es_events in access exclusive mode');
  const pms = new ProcessManagers(db, store, runner, [reactor], { reconcileEveryMs: 60_000 }, createLogger(true));
  await pms.start();
  t.teardown(() => pms.stop());

  const manager = await eventually(async () => (await pms.checkpoints())[0]!, (s) => s.state === 'paused', 30_000);
  t.match(manager, { name: 'reader', state: 'paused', error: /lock timeout/ }, 'the process manager is paused, with the fault');
  const readModel = await eventually(async () => runner.stateOf('projects'), (s) => s.state === 'paused', 30_000);
  t.match(readModel, { state: 'paused', error: /lock timeout/ }, 'and so are the read models, by the same engine, with the same fault');
  t.ok(ALL_PROJECTORS.every((p) => runner.stateOf(p.name).state === 'paused'), 'every live read model: the fault came before any of them');
  t.ok(runner.pause && manager.pausedSince && runner.pause.error === readModel.error, 'one Pause shape for both');
  t.same(seen, [], 'nothing was handled while the log could not be read');

  await admin.query('commit');
  t.ok(await pms.reached(position, 30_000), 'the process manager resumed and read the whole log');
  t.equal(seen.length, 3, 'every event, once');
  const resumed = await eventually(async () => runner.stateOf('projects'), (s) => s.state === 'live', 30_000);
  t.same(resumed, { state: 'live', error: null }, 'the read models are live again');
  t.match((await pms.checkpoints())[0], { state: 'running', error: null, pausedSince: null });
  t.same((await db.query('select projector from proj_parked')).rows, [], 'nothing was parked for the fault');
});
