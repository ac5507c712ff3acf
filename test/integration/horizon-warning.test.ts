import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import t from 'tap';
import { openPostgres } from '../../src/db/pg-client.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import { readHorizon } from '../../src/eventstore/postgres-horizon.js';
import { newEvent } from '../helpers/new-event.js';
import { waitFor } from '../helpers/net.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { startTestServer } from '../helpers/test-server.js';

const occurrences = (text: string, what: string) => text.split(what).length - 1;
const HELD = 'a long transaction holds back the read models and process managers';
const MOVES = 'the read horizon moves again';

t.test('a transaction held open elsewhere in the database is reported once while it holds events back, and cleared', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  const s = await startTestServer({ DATABASE_URL: db.url, SLIPWAY_LOG: 'json' });
  t.teardown(() => s.close());

  const other = new pg.Client({ connectionString: db.url, application_name: 'long report' });
  await other.connect();
  t.teardown(() => other.end());
  await other.query('begin');
  const { rows } = await other.query<{ pid: number }>('select txid_current(), pg_backend_pid() as pid');

  // Without events behind it, an open transaction is nobody's business.
  await sleep(6500);
  t.equal(occurrences(s.logs(), HELD), 0, 'nothing held back, nothing said');
  t.same((await s.call('GET', '/api/health')).body.warnings, []);

  const { position } = await s.app.store.append(`horizontest-${randomUUID()}`, [{ id: randomUUID(), type: 'HorizonProbed', schemaVersion: 1, data: {}, metadata: { actor: 'test', correlationId: randomUUID(), causationId: null } }], 'any');
  t.notOk(await s.app.runner.waitFor(position, 500), 'the runner cannot read past the open transaction');
  await waitFor('the warning', async () => s.logs(), (logs) => logs.includes(HELD), 15_000);
  const health = (await s.call('GET', '/api/health')).body;
  t.equal(health.warnings.length, 1);
  t.match(health.warnings[0], `server process ${rows[0]!.pid}, long report) holds back 1 events`);
  const line = JSON.parse(s.logs().split('\n').find((l) => l.includes(HELD))!);
  t.equal(line.level, 'warn');
  t.match(line.holder, { pid: rows[0]!.pid, application: 'long report' });
  await sleep(2500);
  t.equal(occurrences(s.logs(), HELD), 1, 'logged once for the episode, not every tick');

  await other.query('commit');
  t.ok(await s.app.runner.waitFor(position, 10_000), 'the runner reads on');
  await waitFor('the all-clear', async () => s.logs(), (logs) => logs.includes(MOVES), 15_000);
  t.same((await s.call('GET', '/api/health')).body.warnings, [], 'health has no warning any more');
});

t.test("another database's long transaction on the same server is not this one's horizon", { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  const elsewhere = await freshDatabase(serverUrl!);
  const sql = await openPostgres(db.url, 1);
  const store = await createPostgresEventStore(sql);
  const other = new pg.Client({ connectionString: elsewhere.url, application_name: 'elsewhere' });
  await other.connect();
  t.teardown(async () => {
    await other.end();
    await sql.close();
    await db.drop();
    await elsewhere.drop();
  });
  await other.query('begin');
  await other.query('select pg_current_xact_id()');
  await store.append(`horizontest-${randomUUID()}`, [newEvent('HorizonProbed')], 'any');
  await sleep(1100);
  t.same(await readHorizon(sql), { heldSeconds: 0, eventsHeldBack: 0, holder: null }, 'nothing held, nobody named');
  t.equal((await store.readAll({ after: null, maxCount: 10 })).length, 1, 'the event is read');
  await other.query('rollback');
});
