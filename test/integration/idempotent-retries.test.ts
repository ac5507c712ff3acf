import t from 'tap';
import { requestFingerprint } from '../../src/http/idempotency.js';
import { assertError } from '../helpers/http-errors.js';
import { createProject, createService } from '../helpers/http-resources.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// Writes wait at most 0.5 s for the read models; an attempt nobody has heard of for 1 s is taken for dead.
const SETTLE_SECONDS = 0.5;
const ABANDON_SECONDS = 1;

let s: TestServer;
t.before(async () => {
  s = await startTestServer({ SLIPWAY_SETTLE_TIMEOUT: String(SETTLE_SECONDS), SLIPWAY_IDEMPOTENCY_ABANDON_AFTER: String(ABANDON_SECONDS) });
});
t.teardown(() => s?.close());

const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Holds the projection runner (no batch is applied) until the returned function is called. */
function pauseReadModels(): () => Promise<void> {
  let resume!: () => void;
  const paused = new Promise<void>((done) => (resume = done));
  void s.app.runner.exclusive(() => paused);
  return async () => {
    resume();
    await s.app.runner.caughtUp();
  };
}

async function eventsOfType(type: string, where: { path: string; value: string }): Promise<number> {
  const { rows } = await s.app.db.query<{ n: number }>(`select count(*)::int as n from es_events where type = $1 and data->>$2 = $3`, [type, where.path, where.value]);
  return rows[0]!.n;
}

async function bootstrapKeyId(): Promise<string> {
  const { rows } = await s.app.db.query<{ id: string }>("select id from rm_api_keys where name = 'bootstrap'");
  return rows[0]!.id;
}

/** Sends `path` with `key` while the read models are held: 503. Then the retry, with them running again. */
async function timedOutThenRetried(method: string, path: string, key: string, body?: unknown) {
  const resume = pauseReadModels();
  let first;
  try {
    first = await s.call(method, path, { ...(body === undefined ? {} : { body }), ...withKey(key) });
  } finally {
    await resume();
  }
  const retry = await s.call(method, path, { ...(body === undefined ? {} : { body }), ...withKey(key) });
  const replay = await s.call(method, path, { ...(body === undefined ? {} : { body }), ...withKey(key) });
  return { first, retry, replay };
}

t.test('a write whose answer timed out after its append is answered by its retry, never done twice', async (t) => {
  const body = { name: 'Shop', description: 'the shop' };
  const { first, retry, replay } = await timedOutThenRetried('POST', '/api/projects', 'create-shop', body);
  assertError(t, first, 503, 'unavailable', 'the first answer');
  t.equal(first.headers.get('retry-after'), '1');
  t.equal(retry.status, 200, 'the retry answers');
  t.notOk(retry.headers.get('idempotent-replayed'), 'the retry ran (and found what the first attempt wrote)');
  t.equal(retry.body.project.slug, 'shop', 'the project the first attempt created, not shop-2');
  t.equal(await eventsOfType('ProjectCreated', { path: 'name', value: 'Shop' }), 1, 'one ProjectCreated in the log');
  const { body: list } = await s.call('GET', '/api/projects');
  t.equal((list.projects as { name: string }[]).filter((p) => p.name === 'Shop').length, 1, 'one project');
  t.equal(replay.headers.get('idempotent-replayed'), 'true', 'the answer is kept from then on');
  t.equal(replay.headers.get('idempotent-original-request-id'), retry.headers.get('x-request-id'), 'naming the request that answered');
  t.same(replay.body, retry.body);
});

t.test('the same holds for a service and a deployment', async (t) => {
  const project = await createProject(s, 'Services');
  const serviceBody = { name: 'api', repoFullName: 'acme/api', branch: 'main', env: [{ key: 'A', value: '1' }] };
  const svc = await timedOutThenRetried('POST', `/api/projects/${project.id}/services`, 'create-api', serviceBody);
  assertError(t, svc.first, 503, 'unavailable', 'service: the first answer');
  t.equal(svc.retry.status, 200);
  const serviceId = svc.retry.body.service.id as string;
  t.equal(svc.retry.body.service.slug, 'api', 'the service the first attempt created, not api-2');
  t.equal(await eventsOfType('ServiceCreated', { path: 'projectId', value: project.id }), 1, 'one ServiceCreated');
  const { body: overview } = await s.call('GET', `/api/services/${serviceId}/overview`);
  t.same(
    overview.env.map((e: { key: string }) => e.key),
    ['A'],
    'one variable',
  );
  t.same(svc.replay.body, svc.retry.body);

  const dep = await timedOutThenRetried('POST', `/api/services/${serviceId}/deployments`, 'deploy-api');
  assertError(t, dep.first, 503, 'unavailable', 'deployment: the first answer');
  t.equal(dep.retry.status, 200);
  t.equal(await eventsOfType('DeploymentQueued', { path: 'serviceId', value: serviceId }), 1, 'one deployment queued');
  const { body: deployments } = await s.call('GET', `/api/services/${serviceId}/deployments`);
  t.same(
    deployments.deployments.map((d: { id: string }) => d.id),
    [dep.retry.body.deployment.id],
    'the one deployment is the one the retry answers with',
  );
});

t.test('a request that runs longer than a dead one holds its key is not taken over by its retry', async (t) => {
  const body = { name: 'Slow', description: '' };
  const store = s.app.store;
  const append = store.append.bind(store);
  let slowed = false;
  // Held until the retry has its answer, however slow the machine: the first attempt is still running then.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let reached = () => {};
  const holding = new Promise<void>((resolve) => (reached = resolve));
  store.append = async (...args: Parameters<typeof append>) => {
    // Only this request's append is held: a process manager still finishing the last test appends too.
    if (!slowed && args[1].some((e) => e.type === 'ProjectCreated')) {
      slowed = true;
      reached();
      await held;
    }
    return append(...args);
  };
  try {
    const first = s.call('POST', '/api/projects', { body, ...withKey('slow') });
    await holding;
    // It started long ago, as far as any clock in the row can tell; it is still running, and says so.
    await s.app.db.query("update http_idempotency set started_at = now() - interval '2 minutes' where key = 'slow'");
    await sleep(ABANDON_SECONDS * 1500);
    const retry = await s.call('POST', '/api/projects', { body, ...withKey('slow') });
    release();
    assertError(t, retry, 409, 'conflict', 'the retry while the first runs');
    t.match(retry.body.error?.message, /in progress/);
    const answered = await first;
    t.equal(answered.status, 200, 'the first attempt answers');
    t.equal(answered.body.project.slug, 'slow');
  } finally {
    release();
    store.append = append;
  }
  t.equal(await eventsOfType('ProjectCreated', { path: 'name', value: 'Slow' }), 1, 'created once');
});

t.test('an attempt whose process is gone is taken over once its heartbeat is stale', async (t) => {
  const body = { name: 'Orphan', description: '' };
  const insert = (key: string, heartbeatAgo: number) =>
    s.app.db.query(
      `insert into http_idempotency (api_key_id, key, fingerprint, seed, request_id, owner, started_at, heartbeat_at)
       values ($1, $2, $3, gen_random_uuid()::text, 'lost', 'a-process-that-died', now(), now() - make_interval(secs => $4))`,
      [keyId, key, requestFingerprint('POST', '/api/projects', body), heartbeatAgo],
    );
  const keyId = await bootstrapKeyId();
  await insert('recent-beat', 0);
  assertError(t, await s.call('POST', '/api/projects', { body, ...withKey('recent-beat') }), 409, 'conflict', 'a fresh heartbeat');
  await insert('stale-beat', ABANDON_SECONDS * 2);
  const taken = await s.call('POST', '/api/projects', { body, ...withKey('stale-beat') });
  t.equal(taken.status, 200, 'a stale heartbeat: the retry runs');
  const { rows } = await s.app.db.query<{ owner: string; request_id: string }>("select owner, request_id from http_idempotency where key = 'stale-beat'");
  t.not(rows[0]!.owner, 'a-process-that-died', 'and this process owns the key now');
  t.equal(rows[0]!.request_id, taken.headers.get('x-request-id'));
});

t.test('a service is still created normally around all this', async (t) => {
  const project = await createProject(s, 'Plain');
  t.ok((await createService(s, project.id, { name: 'web', repoFullName: 'acme/web', branch: 'main' })).id);
});
