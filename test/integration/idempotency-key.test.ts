import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { createProject as createProjectCommand } from '../../commands/project/handlers.js';
import { reserve } from '../../commands/reservation/handlers.js';
import { newId } from '../../commands/shared/ids.js';
import { slugify } from '../../commands/shared/slug.js';
import { requestFingerprint } from '../../src/http/idempotency.js';
import { assertError } from '../helpers/http-errors.js';
import { createKey, createProject, createService } from '../helpers/http-resources.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { ON_PGLITE, startTestServer, type TestServer } from '../helpers/test-server.js';

/** Everything Idempotency-Key promises, against a server `start` gives; `cleanUp` runs once it is closed. */
function idempotencySuite(t: Test, start: () => Promise<TestServer>, cleanUp: () => Promise<void> = async () => undefined) {
  let s: TestServer;
  let bootstrapKeyId: string;
  t.before(async () => {
    s = await start();
    const { rows } = await s.app.db.query<{ id: string }>("select id from rm_api_keys where name = 'bootstrap'");
    bootstrapKeyId = rows[0]!.id;
  });
  t.teardown(async () => {
    await s?.close();
    await cleanUp();
  });

  const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });

  async function eventCount(): Promise<number> {
    const { rows } = await s.app.db.query<{ n: number }>('select count(*)::int as n from es_events');
    return rows[0]!.n;
  }

  async function projectsNamed(name: string): Promise<{ id: string; slug: string }[]> {
    const { body } = await s.call('GET', '/api/projects');
    return (body.projects as { id: string; slug: string; name: string }[]).filter((p) => p.name === name);
  }

  /** Makes a stored answer look like an attempt whose process was last heard of `agoSeconds` ago, without answering. */
  async function markInProgress(key: string, agoSeconds: number) {
    const { rowCount } = await s.app.db.query(
      `update http_idempotency set status = null, body = null, owner = 'a-process-that-died',
         started_at = now() - make_interval(secs => $2), heartbeat_at = now() - make_interval(secs => $2) where key = $1`,
      [key, agoSeconds],
    );
    if (rowCount !== 1) throw new Error(`no idempotency record for ${key}`);
  }

  function assertReused(t: Test, r: { status: number; body: any }, label: string) {
    t.equal(r.status, 422, `${label}: 422`);
    t.same(Object.keys(r.body ?? {}), ['error'], `${label}: the one error body`);
    t.equal(r.body?.error?.code, 'idempotency_key_reused', `${label}: idempotency_key_reused`);
    t.same(r.body?.error?.details, [], `${label}: no details`);
  }

  t.test('a POST repeated with its Idempotency-Key is answered again and changes nothing', async (t) => {
    const body = { name: 'Once', description: 'made once' };
    const first = await s.call('POST', '/api/projects', { body, ...withKey('create-once') });
    t.equal(first.status, 200);
    t.notOk(first.headers.get('idempotent-replayed'), 'the first answer is no replay');
    const before = await eventCount();

    const again = await s.call('POST', '/api/projects', { body: { description: 'made once', name: 'Once' }, ...withKey('create-once') });
    t.equal(again.status, first.status, 'same status');
    t.same(again.body, first.body, 'same body (keys in another order are the same request)');
    t.equal(again.headers.get('idempotent-replayed'), 'true', 'marked as a replay');
    t.equal(again.headers.get('idempotent-original-request-id'), first.headers.get('x-request-id'), 'names the request that did the work');
    t.equal(await eventCount(), before, 'nothing appended by the replay');
    t.equal((await projectsNamed('Once')).length, 1, 'one project');

    assertReused(t, await s.call('POST', '/api/projects', { body: { name: 'Other', description: '' }, ...withKey('create-once') }), 'another body');
    assertReused(t, await s.call('PATCH', `/api/projects/${first.body.project.id}`, { body, ...withKey('create-once') }), 'another endpoint');
    t.equal(await eventCount(), before, 'nothing appended by the refused requests');
  });

  t.test('without a key, or with another key, the same POST creates again', async (t) => {
    const body = { name: 'Twice', description: '' };
    const a = await s.call('POST', '/api/projects', { body });
    const b = await s.call('POST', '/api/projects', { body });
    t.not(a.body.project.id, b.body.project.id, 'two projects without a key');
    const c = await s.call('POST', '/api/projects', { body, ...withKey('twice') });
    const d = await s.call('POST', '/api/projects', { body, ...withKey('twice-again') });
    t.not(c.body.project.id, d.body.project.id, 'two projects with two keys');
    t.equal((await projectsNamed('Twice')).length, 4);

    // Keys belong to the API key that sent them: another client's "twice" is another request.
    const other = await createKey(s, 'write', null);
    const e = await s.call('POST', '/api/projects', { body, key: other.secret, ...withKey('twice') });
    t.equal(e.status, 200);
    t.notOk(e.headers.get('idempotent-replayed'), 'not a replay of the other key');
    t.not(e.body.project.id, c.body.project.id, 'a project of its own');
    t.equal((await projectsNamed('Twice')).length, 5);
  });

  t.test('an Idempotency-Key must be 1 to 200 printable ASCII characters', async (t) => {
    const body = { name: 'Bad key', description: '' };
    for (const [label, key] of [
      ['empty', ''],
      ['201 characters', 'k'.repeat(201)],
      ['a tab', 'a\tb'],
      ['non-ASCII', 'clé'],
    ] as const) {
      assertError(t, await s.call('POST', '/api/projects', { body, ...withKey(key) }), 400, 'validation_failed', label);
    }
    t.equal((await projectsNamed('Bad key')).length, 0, 'nothing created');
    t.equal((await s.call('POST', '/api/projects', { body, ...withKey('k'.repeat(200)) })).status, 200, '200 characters are fine');
    t.equal((await s.call('GET', '/api/projects', withKey(''))).status, 200, 'reads ignore the header');
  });

  t.test('a key whose first request is still running is refused with 409', async (t) => {
    const body = { name: 'Slow', description: '' };
    const first = await s.call('POST', '/api/projects', { body, ...withKey('slow') });
    await markInProgress('slow', 5);
    const before = await eventCount();
    const r = await s.call('POST', '/api/projects', { body, ...withKey('slow') });
    assertError(t, r, 409, 'conflict', 'in progress');
    t.match(r.body.error.message, /in progress/);
    t.equal(await eventCount(), before);
    // Once the first attempt is taken for dead, the retry runs again and finds what it did.
    await markInProgress('slow', 120);
    const retry = await s.call('POST', '/api/projects', { body, ...withKey('slow') });
    t.equal(retry.status, 200);
    t.equal(retry.body.project.id, first.body.project.id, 'the same project');
    t.equal(await eventCount(), before, 'nothing appended');
  });

  t.test('a request that died after appending is completed by its retry without appending again', async (t) => {
    const key = 'crashed-create';
    const body = { name: 'Crashed', description: 'the server died before answering' };
    const seed = randomUUID();
    // The first attempt: it ran the command with the key's seed (and appended), then the server died.
    const ctx = s.app.commandContext(`key:${bootstrapKeyId}`, { correlationId: 'first-attempt', idempotencyKey: seed });
    const { id, position } = await createProjectCommand(ctx, body);
    await s.app.settle(position);
    await s.app.db.query(
      `insert into http_idempotency (api_key_id, key, fingerprint, seed, request_id, owner, started_at, heartbeat_at)
       values ($1, $2, $3, $4, 'first-attempt', 'a-process-that-died', now() - interval '2 minutes', now() - interval '2 minutes')`,
      [bootstrapKeyId, key, requestFingerprint('POST', '/api/projects', body), seed],
    );
    const before = await eventCount();

    const retry = await s.call('POST', '/api/projects', { body, ...withKey(key) });
    t.equal(retry.status, 200);
    t.equal(retry.body.project.id, id, 'the project the first attempt created');
    t.equal(retry.body.project.slug, 'crashed', 'with its slug');
    t.equal(await eventCount(), before, 'nothing appended');
    t.equal((await projectsNamed('Crashed')).length, 1, 'one project');
    const replay = await s.call('POST', '/api/projects', { body, ...withKey(key) });
    t.same(replay.body, retry.body, 'the answer is kept from now on');
  });

  t.test('a request that died half-way goes on from where it stopped', async (t) => {
    const key = 'half-way';
    const body = { name: 'Half way', description: '' };
    const seed = randomUUID();
    // The first attempt reserved the slug, then died before creating the project.
    const ctx = s.app.commandContext(`key:${bootstrapKeyId}`, { idempotencyKey: seed });
    const projectId = newId(ctx, 'project');
    await reserve(ctx, 'project-slug', slugify(body.name), projectId, 'slug');
    await s.app.db.query(
      `insert into http_idempotency (api_key_id, key, fingerprint, seed, request_id, owner, started_at, heartbeat_at)
       values ($1, $2, $3, $4, 'first-attempt', 'a-process-that-died', now() - interval '2 minutes', now() - interval '2 minutes')`,
      [bootstrapKeyId, key, requestFingerprint('POST', '/api/projects', body), seed],
    );
    const before = await eventCount();
    const retry = await s.call('POST', '/api/projects', { body, ...withKey(key) });
    t.equal(retry.status, 200);
    t.equal(retry.body.project.id, projectId, 'the id the first attempt chose');
    t.equal(retry.body.project.slug, 'half-way', 'the slug it reserved (not half-way-2)');
    t.equal(await eventCount(), before + 1, 'only the project creation is appended');
  });

  t.test('service creation, env upsert and delete, PATCH and DELETE replay too', async (t) => {
    const p = await createProject(s, 'Replays');
    const serviceBody = { name: 'api', repoFullName: 'acme/api', branch: 'main', env: [{ key: 'A', value: '1' }] };
    const created = await s.call('POST', `/api/projects/${p.id}/services`, { body: serviceBody, ...withKey('svc') });
    t.equal(created.status, 200);
    let before = await eventCount();
    const replayed = await s.call('POST', `/api/projects/${p.id}/services`, { body: serviceBody, ...withKey('svc') });
    t.same(replayed.body, created.body, 'service creation replays');
    t.equal(await eventCount(), before);

    // A creation whose answer was lost: the retry finds the service, and claims no other host port.
    await markInProgress('svc', 120);
    const rerun = await s.call('POST', `/api/projects/${p.id}/services`, { body: serviceBody, ...withKey('svc') });
    t.equal(rerun.status, 200);
    t.equal(rerun.body.service.id, created.body.service.id, 'the same service');
    t.equal(rerun.body.service.hostPort, created.body.service.hostPort, 'the same host port');
    t.equal(await eventCount(), before, 'nothing appended by the re-run');

    const svcId = created.body.service.id as string;
    const setEnv = await s.call('POST', `/api/services/${svcId}/env`, { body: { key: 'B', value: '2' }, ...withKey('env-b') });
    t.same(setEnv.body, { ok: true });
    before = await eventCount();
    t.same((await s.call('POST', `/api/services/${svcId}/env`, { body: { key: 'B', value: '2' }, ...withKey('env-b') })).body, { ok: true });
    t.equal(await eventCount(), before, 'env upsert replays');
    await markInProgress('env-b', 120);
    t.same((await s.call('POST', `/api/services/${svcId}/env`, { body: { key: 'B', value: '2' }, ...withKey('env-b') })).body, { ok: true });
    t.equal(await eventCount(), before, 'a lost env upsert re-runs without appending');
    assertReused(t, await s.call('POST', `/api/services/${svcId}/env`, { body: { key: 'B', value: '3' }, ...withKey('env-b') }), 'another value');

    const envB = (await s.call('GET', `/api/services/${svcId}/overview`)).body.env.find((e: { key: string }) => e.key === 'B');
    const del = await s.call('DELETE', `/api/services/${svcId}/env/${envB.id}`, withKey('del-b'));
    t.equal(del.status, 200);
    before = await eventCount();
    const delAgain = await s.call('DELETE', `/api/services/${svcId}/env/${envB.id}`, withKey('del-b'));
    t.equal(delAgain.status, 200, 'a replayed DELETE answers as the first did');
    t.equal(delAgain.headers.get('idempotent-replayed'), 'true');
    t.equal((await s.call('DELETE', `/api/services/${svcId}/env/${envB.id}`)).status, 404, 'without the key, the variable is gone');

    const patch = { buildCommand: 'npm run build' };
    const patched = await s.call('PATCH', `/api/services/${svcId}`, { body: patch, ...withKey('patch') });
    t.equal(patched.status, 200);
    before = await eventCount();
    const patchedAgain = await s.call('PATCH', `/api/services/${svcId}`, { body: patch, ...withKey('patch') });
    t.same(patchedAgain.body, patched.body, 'PATCH replays');
    t.equal(await eventCount(), before);

    const gone = await s.call('DELETE', `/api/projects/${p.id}`, withKey('delete-project'));
    t.equal(gone.status, 200);
    before = await eventCount();
    t.same((await s.call('DELETE', `/api/projects/${p.id}`, withKey('delete-project'))).body, gone.body, 'DELETE of a project replays');
    t.equal(await eventCount(), before);
  });

  t.test('errors a client caused are kept; a server failure leaves the key to a retry of the same request', async (t) => {
    const p = await createProject(s, 'Errors');
    const missing = `/api/services/${randomUUID()}`;
    const notFound = await s.call('DELETE', missing, withKey('missing'));
    assertError(t, notFound, 404, 'not_found', 'first');
    const again = await s.call('DELETE', missing, withKey('missing'));
    assertError(t, again, 404, 'not_found', 'again');
    t.equal(again.headers.get('idempotent-replayed'), 'true', 'the 404 is kept and replayed');
    assertReused(t, await s.call('DELETE', `/api/services/${randomUUID()}`, withKey('missing')), 'another path');

    const store = s.app.store;
    const append = store.append;
    store.append = async () => {
      throw new Error('the disk is on fire');
    };
    const body = { name: 'Flaky', repoFullName: 'acme/flaky', branch: 'main' };
    let failed: { status: number } | undefined;
    try {
      failed = await s.call('POST', `/api/projects/${p.id}/services`, { body, ...withKey('flaky') });
    } finally {
      store.append = append;
    }
    t.equal(failed?.status, 500, 'the server failed');
    const { rows } = await s.app.db.query<{ retryable: boolean; status: number | null }>("select retryable, status from http_idempotency where key = 'flaky'");
    t.same(rows, [{ retryable: true, status: null }], 'its key is kept, open to a retry, with no answer');
    assertReused(t, await s.call('POST', `/api/projects/${p.id}/services`, { body: { ...body, name: 'other' }, ...withKey('flaky') }), 'another body');
    const retry = await s.call('POST', `/api/projects/${p.id}/services`, { body, ...withKey('flaky') });
    t.equal(retry.status, 200, 'the retry runs');
    t.notOk(retry.headers.get('idempotent-replayed'));
    const replay = await s.call('POST', `/api/projects/${p.id}/services`, { body, ...withKey('flaky') });
    t.equal(replay.headers.get('idempotent-replayed'), 'true', 'its answer is kept');
    t.equal(replay.body.service.id, retry.body.service.id);
    const svc = await createService(s, p.id, { name: 'steady', repoFullName: 'acme/steady', branch: 'main' });
    t.ok(svc.id);
  });

  t.test('keys are kept for a day', async (t) => {
    const first = await s.call('POST', '/api/projects', { body: { name: 'Yesterday', description: '' }, ...withKey('daily') });
    t.equal(first.status, 200);
    await s.app.db.query("update http_idempotency set created_at = now() - interval '25 hours' where key = 'daily'");
    const next = await s.call('POST', '/api/projects', { body: { name: 'Today', description: '' }, ...withKey('daily') });
    t.equal(next.status, 200, 'an expired key is a new key');
    t.not(next.body.project.id, first.body.project.id);
    t.equal(next.body.project.name, 'Today');
  });

  t.test('a new API key replays with its secret, which is stored sealed', async (t) => {
    const body = { name: 'ci', access: 'read', projectIds: null };
    const first = await s.call('POST', '/api/keys', { body, ...withKey('new-key') });
    t.equal(first.status, 200);
    const again = await s.call('POST', '/api/keys', { body, ...withKey('new-key') });
    t.same(again.body, first.body, 'the same key and secret');
    const { rows } = await s.app.db.query<{ row: string }>('select t::text as row from http_idempotency t');
    t.notMatch(rows.map((r) => r.row).join('\n'), first.body.secret, 'no secret in clear in the table');

    // An attempt that created the key and died: its secret is gone, and the retry says so.
    await markInProgress('new-key', 120);
    const lost = await s.call('POST', '/api/keys', { body, ...withKey('new-key') });
    assertError(t, lost, 409, 'conflict', 'a lost secret');
    t.match(lost.body.error.message, first.body.key.id, 'names the key to revoke');
  });
}

t.test('on PGlite', async (t) => idempotencySuite(t, () => startTestServer(ON_PGLITE)));

const skip = requirePostgresServer();
t.test('on a Postgres server', { skip }, async (t) => {
  if (!serverUrl) return;
  const db = await freshDatabase(serverUrl);
  idempotencySuite(t, () => startTestServer({ DATABASE_URL: db.url }), () => db.drop());
});
