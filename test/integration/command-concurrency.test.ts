import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { ON_PGLITE, startTestServer, type TestServer } from '../helpers/test-server.js';
import { deleteEnvVar, setEnvVar } from '../../commands/service/handlers.js';

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

/**
 * Two commands in line on one stream whose cached state another writer made stale by exactly one event:
 * the first (decided on the cache) is refused; the second, decided on the state the first would have made,
 * expects a revision the other writer's event happens to reach. It must be refused too, and decided again.
 */
async function pipelinedAfterRefusal(t: Test, s: TestServer) {
  const p = await createProject(s, 'Pipelined');
  const svc = await createService(s, p.id, { name: 'web', repoFullName: 'acme/web', branch: 'main' });
  t.equal((await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'FIRST', value: '1' } })).status, 200);
  const foreignId = randomUUID();
  const foreign = await s.app.store.append(
    `service-${svc.id}`,
    [{ id: randomUUID(), type: 'EnvVarSet', schemaVersion: 1, data: { envId: foreignId, key: 'X', value: await s.app.keyring.encrypt(svc.id, '0') }, metadata: { actor: 'test', correlationId: randomUUID(), causationId: null } }],
    'any',
  );
  await s.app.settle(foreign.position);
  const ctx = () => s.app.commandContext('key:test');
  const results = await Promise.all([setEnvVar(ctx(), svc.id, 'X', '1'), setEnvVar(ctx(), svc.id, 'X', '2')]);
  await s.app.settle(results.map((r) => r.position).sort().pop() ?? null);
  const { rows } = await s.app.db.query<{ env_id: string }>(
    `select distinct data->>'envId' as env_id from es_events where stream_id = $1 and type = 'EnvVarSet' and data->>'key' = 'X'`,
    [`service-${svc.id}`],
  );
  t.same(rows.map((r) => r.env_id), [foreignId], 'every write of X names the variable the log already had');
  const env = (await s.call('GET', `/api/services/${svc.id}/overview`)).body.env as { id: string; key: string }[];
  t.same(env.filter((e) => e.key === 'X').map((e) => e.id), [foreignId], 'one variable X in the read model');
  t.equal((await s.call('GET', '/api/health')).body.parked, 0, 'nothing parked');
}

t.test('a command in line after a refused one is refused too, PGlite', async (t) => {
  const s = await startTestServer(ON_PGLITE);
  t.teardown(() => s.close());
  await pipelinedAfterRefusal(t, s);
});

t.test('a command in line after a refused one is refused too, Postgres server', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  const s = await startTestServer({ DATABASE_URL: db.url });
  t.teardown(() => s.close());
  await pipelinedAfterRefusal(t, s);
});

t.test('an append the store already had leaves the cached state as the log has it', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const p = await createProject(s, 'Duplicate');
  const svc = await createService(s, p.id, { name: 'web', repoFullName: 'acme/web', branch: 'main' });
  const retried = () => s.app.commandContext('key:test', { idempotencyKey: 'retried-seed' });
  // Two attempts of one request at once: neither finds the other's append, both decide, and the store
  // answers the second with the first's append (a duplicate): nothing more is in the stream.
  const [first, second] = await Promise.all([setEnvVar(retried(), svc.id, 'A', '1'), setEnvVar(retried(), svc.id, 'A', '1')]);
  t.equal(first.position, second.position, 'the second attempt is answered with the first one\'s append');
  await s.app.settle(first.position);
  // Another writer's event right after: a load must find it (a cache that counted the duplicate would start past it).
  const otherId = randomUUID();
  const other = await s.app.store.append(
    `service-${svc.id}`,
    [{ id: randomUUID(), type: 'EnvVarSet', schemaVersion: 1, data: { envId: otherId, key: 'Z', value: await s.app.keyring.encrypt(svc.id, 'z') }, metadata: { actor: 'test', correlationId: randomUUID(), causationId: null } }],
    'any',
  );
  await s.app.settle(other.position);
  const { events, position } = await deleteEnvVar(s.app.commandContext('key:test'), svc.id, otherId);
  t.equal(events.length, 1, 'the variable the other writer set is found and deleted');
  await s.app.settle(position);
  t.notOk((await envOf(s, svc.id)).includes('Z'));
});

t.test('a retry finds its first attempt\'s append however far back it is, and answers as it did', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const p = await createProject(s, 'Far back');
  const svc = await createService(s, p.id, { name: 'web', repoFullName: 'acme/web', branch: 'main' });
  const set = await setEnvVar(s.app.commandContext('key:test'), svc.id, 'GONE', '1');
  const envId = (set.events[0]!.data as { envId: string }).envId;
  const retried = () => s.app.commandContext('key:test', { idempotencyKey: 'delete-seed' });
  const first = await deleteEnvVar(retried(), svc.id, envId);
  for (let i = 0; i < 30; i++) await setEnvVar(s.app.commandContext('key:test'), svc.id, `B${i}`, 'b');
  // Decided again, the delete would find no variable (404): the retry answers with the first attempt's append.
  const retry = await deleteEnvVar(retried(), svc.id, envId);
  t.same(retry, first);
});

t.test('concurrent commands on one aggregate, PGlite', async (t) => {
  const s = await startTestServer(ON_PGLITE);
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
