import pg from 'pg';
import t from 'tap';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { startTestServer } from '../helpers/test-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a database fault pauses the read models and never parks; they resume by themselves', { skip: requirePostgresServer() }, async (t) => {
  const database = await freshDatabase(serverUrl!);
  t.teardown(() => database.drop());
  const name = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  t.teardown(() => admin.end());
  // Slipway's connections give up on a lock after 200 ms: a held lock is a fault of the database, not of an event.
  await admin.query(`alter database ${name} set lock_timeout = '200ms'`);
  const s = await startTestServer({ DATABASE_URL: database.url, SLIPWAY_SETTLE_TIMEOUT: '60', SLIPWAY_LOG: 'json' });
  t.teardown(() => s.close());
  await admin.query('set lock_timeout = 0');
  await admin.query('begin');
  // EXCLUSIVE, not ACCESS EXCLUSIVE: the latter takes a transaction id, which holds back the log's read horizon instead.
  await admin.query('lock table rm_projects in exclusive mode');

  const write = s.call('POST', '/api/projects', { body: { name: 'Waits' } });
  let paused: { state: string; error: string | null } | undefined;
  for (let i = 0; i < 100 && paused?.state !== 'paused'; i++) {
    await sleep(100);
    const health = (await s.call('GET', '/api/health')).body;
    paused = health.projectors.find((p: { name: string }) => p.name === 'projects');
  }
  t.match(paused, { state: 'paused', error: /lock timeout/ }, 'health shows the read model paused, with the fault');
  await sleep(1500);
  t.same((await s.call('GET', '/api/health/parked')).body.parked, [], 'nothing is parked while the fault lasts');

  await admin.query('rollback');
  const answer = await write;
  t.equal(answer.status, 200, 'once the database is back, the write is answered');
  t.equal(answer.body.project?.name, 'Waits');
  const health = (await s.call('GET', '/api/health')).body;
  t.ok(health.projectors.every((p: { state: string; error: string | null }) => p.state === 'live' && p.error === null), 'every read model live again');
  t.equal(health.parked, 0, 'and none parked anything');
});
