import { randomUUID } from 'node:crypto';
import pg from 'pg';
import t, { type Test } from 'tap';
import { ALL_PROJECTORS } from '../../projections/all.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { openPostgres } from '../../src/db/pg-client.js';
import type { SqlClient } from '../../src/db/sql-client.js';
import type { EventStore, RecordedEvent } from '../../src/eventstore/port.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import { createLogger } from '../../src/logger.js';
import { ProcessManagers } from '../../src/processes/process-managers.js';
import type { Reactor } from '../../src/processes/reactor.js';
import { newEvent } from '../helpers/new-event.js';
import { eventually } from '../helpers/net.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';

// Today's process managers park a batch's events after five failed tries, about 16 s of trouble: the fault
// below lasts longer than that.
const FAULT_MS = 19_000;

async function setup(t: Test) {
  const database = await freshDatabase(serverUrl!);
  const db = await openPostgres(database.url);
  const store = await createPostgresEventStore(db);
  const runner = new ProjectionRunner(db, store, ALL_PROJECTORS);
  await runner.start();
  await db.exec('create table pm_effects (event_id text primary key)');
  t.teardown(async () => {
    await runner.stop();
    await db.close();
    await database.drop();
  });
  return { db, store, runner, url: database.url };
}

/** A reactor whose effect is a row in `pm_effects`, written the way a process manager writes: through the database. */
function effectWriter(db: SqlClient): Reactor {
  return {
    name: 'effects',
    async handle(batch: readonly RecordedEvent[]) {
      await db.transaction(async (tx) => {
        await tx.query("set local lock_timeout = '100ms'");
        for (const e of batch) await tx.query('insert into pm_effects (event_id) values ($1) on conflict do nothing', [e.id]);
      });
    },
  };
}

const projectCreated = (n: number) => newEvent('ProjectCreated', { name: `P${n}`, slug: `p-${n}-${randomUUID().slice(0, 8)}`, description: '' });

async function appendProjects(store: EventStore, count: number) {
  const ids: string[] = [];
  let position = '';
  for (let n = 0; n < count; n++) {
    const e = projectCreated(n);
    ids.push(e.id);
    position = (await store.append(`project-${randomUUID()}`, [e], 'no_stream')).position;
  }
  return { ids, position };
}

const parkedRows = async (db: SqlClient) => (await db.query<{ event_id: string }>('select event_id from proj_parked')).rows;
const effects = async (db: SqlClient) => (await db.query<{ event_id: string }>('select event_id from pm_effects order by event_id')).rows.map((r) => r.event_id);

t.test('a database fault pauses a process manager instead of parking its events; it resumes when the fault passes', { skip: requirePostgresServer() }, async (t) => {
  const { db, store, runner, url } = await setup(t);
  const pms = new ProcessManagers(db, store, runner, [effectWriter(db)], { reconcileEveryMs: 60_000 }, createLogger(true));
  await pms.start();
  t.teardown(() => pms.stop());

  // Another session holds the table the reactor writes to, as a long `create index` does (share mode: no
  // transaction id, so the read horizon is not held back): every write of the reactor fails with "lock not
  // available" while the rest of the database answers.
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  t.teardown(() => holder.end().catch(() => undefined));
  await holder.query('begin');
  await holder.query('lock table pm_effects in share mode');

  const { ids, position } = await appendProjects(store, 3);
  t.ok(await runner.waitFor(position, 10_000), 'the read models applied the events');

  const paused = await eventually(async () => (await pms.checkpoints())[0]!, (s) => s.state === 'paused', 10_000);
  t.match(paused, { name: 'effects', state: 'paused', error: /lock/ }, 'paused, with the fault as the reason');
  t.ok(paused.pausedSince instanceof Date, 'and since when');

  await new Promise((r) => setTimeout(r, FAULT_MS));
  t.same(await parkedRows(db), [], 'nothing was parked during the fault');
  const during = (await pms.checkpoints())[0]!;
  t.equal(during.state, 'paused', 'still paused while the fault lasts');
  t.same(during.pausedSince, paused.pausedSince, 'one pause, not a new one per retry');
  t.not(during.position, position, 'its checkpoint did not move past events it could not handle');

  await holder.query('commit');
  t.ok(await pms.reached(position, 15_000), 'it resumed once the lock was released');
  t.same(await effects(db), [...ids].sort(), 'and handled every event');
  t.match((await pms.checkpoints())[0], { state: 'running', error: null, pausedSince: null });
  t.same(await parkedRows(db), [], 'still nothing parked');
});
