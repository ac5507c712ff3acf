import { randomUUID } from 'node:crypto';
import t from 'tap';
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

t.test('concurrent commands on one aggregate all succeed: they queue per stream instead of losing the race', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  const s = await startTestServer({ DATABASE_URL: db.url });
  t.teardown(() => s.close());
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
});
