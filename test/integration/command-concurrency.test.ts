import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const envOf = async (s: TestServer, serviceId: string) =>
  ((await s.call('GET', `/api/services/${serviceId}/overview`)).body.env as { id: string; key: string; value: string }[]).map((e) => e.key).sort();

t.test('a command decided on a cached state that another writer made stale is decided again on the log', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const p = await createProject(s, 'Stale');
  const svc = await createService(s, p.id, { name: 'web', repoFullName: 'acme/web', branch: 'main' });
  t.equal((await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'FIRST', value: '1' } })).status, 200);
  // Another writer (a second process, a script) adds a variable this process's cache has not seen.
  const envId = randomUUID();
  const { position } = await s.app.store.append(
    `service-${svc.id}`,
    [{ id: randomUUID(), type: 'EnvVarSet', schemaVersion: 1, data: { envId, key: 'OTHER', value: await s.app.keyring.encrypt(svc.id, 'x') }, metadata: { actor: 'test', correlationId: randomUUID(), causationId: null } }],
    'any',
  );
  await s.app.settle(position);
  // On the cached state the variable does not exist (404); on the log it does.
  const deleted = await s.call('DELETE', `/api/services/${svc.id}/env/${envId}`);
  t.equal(deleted.status, 200, JSON.stringify(deleted.body));
  t.same(await envOf(s, svc.id), ['FIRST']);
  // And a command the cache would take as current appends after the other writer's event, not over it.
  t.equal((await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'SECOND', value: '2' } })).status, 200);
  t.same(await envOf(s, svc.id), ['FIRST', 'SECOND']);
});

/**
 * Concurrent commands on one aggregate queue per stream instead of losing the optimistic race, and each
 * hands its append over as soon as it has decided (the next decides on the state that append will make),
 * so their appends share transactions.
 */
async function concurrentCommands(t: Test, s: TestServer) {
  const p = await createProject(s, 'Busy');
  const svc = await createService(s, p.id, { name: 'web', repoFullName: 'acme/web', branch: 'main' });
  const keys = Array.from({ length: 40 }, (_, i) => `KEY_${String(i).padStart(2, '0')}`);
  const answers = await Promise.all(keys.map((key) => s.call('POST', `/api/services/${svc.id}/env`, { body: { key, value: key.toLowerCase() } })));
  t.same(
    answers.map((a) => a.status),
    keys.map(() => 200),
    'no 409 for a client that did nothing wrong',
  );
  t.same(await envOf(s, svc.id), keys);
  const { rows } = await s.app.db.query<{ events: number; transactions: number; revisions: number }>(
    `select count(*)::int as events, count(distinct transaction_id)::int as transactions, max(revision)::int + 1 as revisions
     from es_events where stream_id = $1 and type = 'EnvVarSet'`,
    [`service-${svc.id}`],
  );
  t.equal(rows[0]!.events, 40, 'one event each');
  // Without pipelining each command holds the stream through its append: 40 transactions. How many they
  // share depends on how busy the machine is (the whole suite runs beside this), so only sharing is asserted.
  t.ok(rows[0]!.transactions < 40, `40 appends to one stream in ${rows[0]!.transactions} transactions`);

  // Another writer moves the stream on: the first command decided on the cache is refused, and so are
  // those decided on the state it assumed; each is decided again on the log.
  const { position } = await s.app.store.append(
    `service-${svc.id}`,
    [{ id: randomUUID(), type: 'EnvVarSet', schemaVersion: 1, data: { envId: randomUUID(), key: 'OTHER', value: await s.app.keyring.encrypt(svc.id, 'x') }, metadata: { actor: 'test', correlationId: randomUUID(), causationId: null } }],
    'any',
  );
  await s.app.settle(position);
  const more = Array.from({ length: 10 }, (_, i) => `MORE_${i}`);
  const again = await Promise.all(more.map((key) => s.call('POST', `/api/services/${svc.id}/env`, { body: { key, value: 'v' } })));
  t.same(
    again.map((a) => a.status),
    more.map(() => 200),
    'after another writer, every pipelined command still succeeds',
  );
  t.same(await envOf(s, svc.id), [...keys, ...more, 'OTHER'].sort());
}

t.test('concurrent commands on one aggregate, PGlite', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  await concurrentCommands(t, s);
});

t.test('concurrent commands on one aggregate, Postgres server', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  const s = await startTestServer({ DATABASE_URL: db.url });
  t.teardown(() => s.close());
  await concurrentCommands(t, s);
});
