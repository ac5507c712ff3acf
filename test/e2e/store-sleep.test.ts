import t from 'tap';
import { eventually } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The embedded store closes its thread when the API is quiet (src/db/pglite-sleep.ts): the periodic work of
// a running server (reconcile ticks, the log's fallback poll, PGlite's upkeep) must let it sleep, and an API
// request must find everything where it was.
t.test('a quiet server lets its store sleep; the next request wakes it with everything in place', async (t) => {
  const server = await startTestServer({ SLIPWAY_STORE_SLEEP_AFTER: '0.5', SLIPWAY_RECONCILE_INTERVAL: '0.1' });
  t.teardown(() => server.close());
  const db = server.app.db;
  const first = await server.call('POST', '/api/projects', { body: { name: 'Before sleep', description: '' } });
  t.equal(first.status, 200);

  await eventually(async () => db.asleep(), (asleep) => asleep, 10_000);
  const samples: boolean[] = [];
  for (let i = 0; i < 50; i++) {
    samples.push(db.asleep());
    await pause(20);
  }
  t.ok(samples.every(Boolean), 'it stays asleep for a second of reconcile ticks every 100 ms');
  t.equal((await server.call('GET', '/healthz')).status, 200);
  t.ok(db.asleep(), '/healthz answers without waking it');

  const listed = await server.call('GET', '/api/projects');
  t.equal(listed.status, 200);
  t.same(listed.body.projects.map((p: { name: string }) => p.name), ['Before sleep'], 'a read after the sleep sees what was written before');
  const second = await server.call('POST', '/api/projects', { body: { name: 'After sleep', description: '' } });
  t.equal(second.status, 200, 'a write after waking is projected: its answer waits for the read model');
  t.same(
    (await server.call('GET', `/api/projects/${second.body.project.id}`)).body.project.name,
    'After sleep',
  );
  await eventually(async () => db.asleep(), (asleep) => asleep, 10_000);
  t.pass('and it sleeps again once quiet');
});
