import t from 'tap';
import { startTestServer } from '../helpers/test-server.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether, within 15 s, the store stays asleep through one whole second. */
async function asleepForASecond(db: { asleep(): boolean }): Promise<boolean> {
  const end = Date.now() + 15_000;
  let since: number | null = null;
  while (Date.now() < end) {
    if (!db.asleep()) since = null;
    else if (since === null) since = Date.now();
    else if (Date.now() - since >= 1000) return true;
    await pause(20);
  }
  return false;
}

// The embedded store closes its thread when the API is quiet (src/db/pglite-sleep.ts): the periodic work of
// a running server (reconcile ticks, the log's fallback poll, PGlite's upkeep) must let it sleep, and an API
// request must find everything where it was.
t.test('a quiet server lets its store sleep; the next request wakes it with everything in place', async (t) => {
  const server = await startTestServer({ SLIPWAY_STORE_SLEEP_AFTER: '0.5', SLIPWAY_RECONCILE_INTERVAL: '0.1' });
  t.teardown(() => server.close());
  const db = server.app.db;
  const first = await server.call('POST', '/api/projects', { body: { name: 'Before sleep', description: '' } });
  t.equal(first.status, 200);

  // The checkpoints of the process managers are saved half a second after the events: that one write may wake
  // it once more. Periodic work that woke it would never leave it asleep for a whole second.
  t.ok(await asleepForASecond(db), 'it stays asleep for a second of reconcile ticks every 100 ms');
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
  t.ok(await asleepForASecond(db), 'and it sleeps again once quiet');
});
