import { createServer, type Server, type Socket } from 'node:net';
import t from 'tap';
import { detectPublicIp } from '../../src/network.js';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { assertError } from '../helpers/http-errors.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const database = (name: string, engine: string) => ({ name, repoFullName: `database:${engine}`, repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] });
const PG_SECRET = 'legacy-Pw-7731';
const REDIS_SECRET = 'cache-Pw-5519';

async function imported(s: TestServer, serviceId: string, body: { sourceUrl: string }, source: string) {
  const r = await s.call('POST', `/api/services/${serviceId}/database/import/${source}`, { body });
  if (r.status !== 200) throw new Error(`import: ${r.status} ${JSON.stringify(r.body)}`);
  for (let i = 0; i < 600; i++) {
    const found = ((await s.call('GET', `/api/services/${serviceId}/database/imports`)).body.imports as Record<string, any>[]).find((x) => x.id === r.body.result.id);
    if (found && found.status !== 'running') return { answer: r.body.result as Record<string, any>, done: found };
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error('import did not end');
}

const sql = async (s: TestServer, serviceId: string, text: string) => (await s.call('POST', `/api/services/${serviceId}/database/query`, { body: { sql: text } })).body;

/** A TCP server that records every connection and holds it open, answering nothing, until released. */
async function tcpRecorder(host: string) {
  const held = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => connections,
    release: () => held.forEach((socket) => socket.destroy()),
    close: () => new Promise<void>((resolve) => (held.forEach((socket) => socket.destroy()), server.close(() => resolve()))),
  };
}

const waitUntil = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) if (await check()) return;
  throw new Error(`${what} did not happen within ${timeoutMs / 1000} s`);
};

t.test('imports from a Postgres or Redis URL: another service by name, an unreachable host, no password anywhere', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_DEPLOY_CONCURRENCY: '4' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Imports');
  t.teardown(() => removeProjectLeftovers(project.id));
  const legacy = await createService(s, project.id, database('legacy-db', 'postgres'));
  const main = await createService(s, project.id, database('main-db', 'postgres'));
  // Public: its port is open on every address of the host, which a helper container can reach once allowed.
  const oldCache = await createService(s, project.id, { ...database('old-cache', 'redis'), databasePublicEnabled: true });
  const cache = await createService(s, project.id, database('cache', 'redis'));
  t.equal((await s.call('POST', `/api/services/${legacy.id}/env`, { body: { key: 'POSTGRES_PASSWORD', value: PG_SECRET } })).status, 200);
  t.equal((await s.call('POST', `/api/services/${oldCache.id}/env`, { body: { key: 'REDIS_PASSWORD', value: REDIS_SECRET } })).status, 200);
  for (const r of await Promise.all([legacy, main, oldCache, cache].map((svc) => deploy(s, svc.id)))) t.equal(outcome(r.done), 'succeeded');

  t.test('bad input is refused', async (t) => {
    for (const sourceUrl of ['not a url', 'mysql://u:p@h/db', 'postgres://', 42]) {
      const r = await s.call('POST', `/api/services/${main.id}/database/import/postgres-url`, { body: { sourceUrl } });
      t.equal(r.status, 400, String(sourceUrl));
    }
    t.equal((await s.call('POST', `/api/services/${main.id}/database/import/redis-url`, { body: { sourceUrl: 'redis://h:6379' } })).status, 400, 'a redis import into postgres');
    const reader = await createKey(s, 'read', [project.id]);
    t.equal((await s.call('POST', `/api/services/${main.id}/database/import/postgres-url`, { body: { sourceUrl: 'postgres://h/db' }, key: reader.secret })).status, 403);
    t.equal((await s.call('GET', `/api/services/${main.id}/database/imports`, { key: reader.secret })).status, 200);
  });

  t.test('postgres: from another service of the project, by its name', async (t) => {
    await sql(s, legacy.id, "create table customers (id serial primary key, name text); insert into customers (name) values ('Ada'), ('Grace')");
    const { answer, done } = await imported(s, main.id, { sourceUrl: `postgresql://postgres:${PG_SECRET}@legacy-db:5432/legacy_db` }, 'postgres-url');
    t.match(answer, { status: 'running', source: 'postgres-url' });
    t.equal(done.status, 'succeeded', done.error ?? '');
    t.equal(done.sourceLabel, 'postgresql://legacy-db:5432/legacy_db', 'the label has no user name or password');
    t.same((await sql(s, main.id, 'select name from customers order by id')).rows, [{ name: 'Ada' }, { name: 'Grace' }]);
  });

  t.test('postgres: an unreachable host fails with a reason and no password', async (t) => {
    const { done } = await imported(s, main.id, { sourceUrl: `postgresql://postgres:${PG_SECRET}@nowhere.invalid:5432/x` }, 'postgres-url');
    t.equal(done.status, 'failed');
    t.match(done.error, /could not resolve nowhere\.invalid/);
    t.notOk(done.error.includes(PG_SECRET));
  });

  t.test('redis: every logical database, TTLs kept', async (t) => {
    await sql(s, oldCache.id, 'SET user:1 "Ada"');
    await sql(s, oldCache.id, 'SET session:9 "x" EX 3600');
    const three = await s.call('POST', `/api/services/${oldCache.id}/database/rows`, { body: { table: 'db3.other', values: { key: 'other:one', value: 'y' } } });
    t.equal(three.status, 200, JSON.stringify(three.body));
    const { done } = await imported(s, cache.id, { sourceUrl: `redis://default:${REDIS_SECRET}@old-cache:6379` }, 'redis-url');
    t.equal(done.status, 'succeeded', done.error ?? '');
    const rows = (await s.call('GET', `/api/services/${cache.id}/database/rows?table=db0.user`)).body.rows;
    t.same(rows, [{ key: 'user:1', type: 'string', ttl: -1, value: 'Ada' }]);
    const session = (await s.call('GET', `/api/services/${cache.id}/database/rows?table=db0.session`)).body.rows[0];
    t.ok(session.ttl > 3000 && session.ttl <= 3600, `the TTL is kept (${session.ttl})`);
    t.same((await s.call('GET', `/api/services/${cache.id}/database/rows?table=db3.other`)).body.rows, [{ key: 'other:one', type: 'string', ttl: -1, value: 'y' }], 'logical database 3 too');
  });

  const hostIp = detectPublicIp();
  const loopback = await tcpRecorder('127.0.0.1');
  const outside = await tcpRecorder(hostIp);
  t.teardown(() => Promise.all([loopback.close(), outside.close()]));

  t.test('a project-scoped key cannot import from this host: 400 forbidden_destination, nothing connects', async (t) => {
    const scoped = await createKey(s, 'write', [project.id]);
    const before = (await s.call('GET', `/api/services/${cache.id}/database/imports`)).body.imports.length;
    const redis = [
      `redis://default:${REDIS_SECRET}@127.0.0.1:${loopback.port}`,
      `redis://127.0.0.1:${oldCache.hostPort}`,
      `redis://localhost:${loopback.port}`,
      `redis://[::1]:${loopback.port}`,
      `redis://[::ffff:127.0.0.1]:${loopback.port}`,
      `redis://0.0.0.0:${loopback.port}`,
      `redis://${hostIp}:${oldCache.hostPort}`,
      `redis://169.254.169.254:80`,
    ];
    for (const sourceUrl of redis) {
      const r = await s.call('POST', `/api/services/${cache.id}/database/import/redis-url`, { body: { sourceUrl }, key: scoped.secret });
      assertError(t, r, 400, 'forbidden_destination', sourceUrl);
      t.same(r.body.error.details.map((d: { path: string }) => d.path), ['sourceUrl']);
      t.notOk(JSON.stringify(r.body).includes(REDIS_SECRET), 'the password is not repeated');
    }
    const pg = await s.call('POST', `/api/services/${main.id}/database/import/postgres-url`, { body: { sourceUrl: `postgresql://postgres:${PG_SECRET}@127.0.0.1:${legacy.hostPort}/legacy_db` }, key: scoped.secret });
    assertError(t, pg, 400, 'forbidden_destination', 'a Postgres source on loopback');
    for (const sourceUrl of [`postgresql://u@db.example.com/x?host=127.0.0.1`, `postgresql://u@db.example.com/x?hostaddr=127.0.0.1`, `postgresql://u@127.0.0.1,db.example.com/x`]) {
      assertError(t, await s.call('POST', `/api/services/${main.id}/database/import/postgres-url`, { body: { sourceUrl }, key: scoped.secret }), 400, 'validation_failed', sourceUrl);
    }
    t.equal(loopback.connections(), 0, 'nothing connected to the server on loopback');
    t.equal((await s.call('GET', `/api/services/${cache.id}/database/imports`)).body.imports.length, before, 'no import was recorded');
  });

  t.test('an allowed source is reached from the helper container on the project network', async (t) => {
    const allowed = [`${hostIp}:${oldCache.hostPort}`, `127.0.0.1:${loopback.port}`, `${hostIp}:${outside.port}`];
    t.equal((await s.call('PATCH', '/api/settings', { body: { allowedDestinations: allowed } })).status, 200);
    await sql(s, oldCache.id, 'SET via:host "through the relay"');
    const { done } = await imported(s, cache.id, { sourceUrl: `redis://default:${REDIS_SECRET}@${hostIp}:${oldCache.hostPort}` }, 'redis-url');
    t.equal(done.status, 'succeeded', done.error ?? '');
    t.same((await s.call('GET', `/api/services/${cache.id}/database/rows?table=db0.via`)).body.rows, [{ key: 'via:host', type: 'string', ttl: -1, value: 'through the relay' }], 'the data arrived');

    // 127.0.0.1 in the helper is the helper itself: the server on the host's loopback is never reached.
    const own = await imported(s, cache.id, { sourceUrl: `redis://default:${REDIS_SECRET}@127.0.0.1:${loopback.port}` }, 'redis-url');
    t.equal(own.done.status, 'failed');
    t.match(own.done.error, new RegExp(`could not connect to 127\\.0\\.0\\.1:${loopback.port}: Connection refused`));
    t.notOk(own.done.error.includes(REDIS_SECRET));
    t.equal(loopback.connections(), 0, "the host's loopback saw no connection");
  });

  t.test('one import at a time per service; the helper gets its passwords in files, not its environment or command', async (t) => {
    const first = await s.call('POST', `/api/services/${main.id}/database/import/postgres-url`, { body: { sourceUrl: `postgresql://postgres:${PG_SECRET}@${hostIp}:${outside.port}/legacy_db?sslmode=disable` } });
    t.equal(first.status, 200, JSON.stringify(first.body));
    await waitUntil('the helper to connect to the stalling source', async () => outside.connections() > 0);
    const second = await s.call('POST', `/api/services/${main.id}/database/import/postgres-url`, { body: { sourceUrl: `postgresql://postgres:${PG_SECRET}@legacy-db:5432/legacy_db` } });
    assertError(t, second, 409, 'conflict', 'a second import while one runs');
    t.match(second.body.error.message, new RegExp(first.body.result.id));

    const helper = await docker.getContainer(`slipway-import-${first.body.result.id}`).inspect();
    const shown = JSON.stringify({ env: helper.Config.Env, cmd: helper.Config.Cmd, args: helper.Args, path: helper.Path, labels: helper.Config.Labels });
    t.notOk(shown.includes(PG_SECRET), 'not the source password');
    const files = await docker.getContainer(helper.Id).exec({ Cmd: ['stat', '-c', '%a %U %n', '/run/slipway-import/source.pgpass', '/run/slipway-import/target.pgpass'], AttachStdout: true, AttachStderr: true });
    const output = await new Promise<string>((resolve, reject) => files.start({}, (error, stream) => {
      if (error || !stream) return reject(error);
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      stream.on('end', () => resolve(text));
    }));
    t.match(output, /600 root \/run\/slipway-import\/source\.pgpass/);
    t.match(output, /600 root \/run\/slipway-import\/target\.pgpass/);

    const anonymous = (helper.Mounts ?? []).filter((m) => m.Type === 'volume').map((m) => m.Name!);
    t.ok(anonymous.length > 0, "the image's VOLUME gave the helper an anonymous volume");

    outside.release();
    await waitUntil('the stalled import to end', async () =>
      ((await s.call('GET', `/api/services/${main.id}/database/imports`)).body.imports as { id: string; status: string }[]).some((i) => i.id === first.body.result.id && i.status !== 'running'),
    );
    await waitUntil('the helper to be removed', async () => (await docker.getContainer(helper.Id).inspect().then(() => true, () => false)) === false);
    for (const name of anonymous) t.equal(await docker.getVolume(name).inspect().then(() => 'left behind', () => 'removed'), 'removed', `its volume ${name.slice(0, 12)} went with it`);
    const third = await s.call('POST', `/api/services/${main.id}/database/import/postgres-url`, { body: { sourceUrl: `postgresql://postgres:${PG_SECRET}@legacy-db:5432/legacy_db` } });
    t.equal(third.status, 200, 'accepted once the first has ended');
    await waitUntil('the third import to end', async () =>
      ((await s.call('GET', `/api/services/${main.id}/database/imports`)).body.imports as { id: string; status: string }[]).some((i) => i.id === third.body.result.id && i.status !== 'running'),
      120_000,
    );
    await s.call('PATCH', '/api/settings', { body: { allowedDestinations: null } });
  });

  t.test('the source password is in no answer, no read table and no audit event', async (t) => {
    const everything = JSON.stringify([
      (await s.call('GET', `/api/services/${main.id}/database/imports`)).body,
      (await s.call('GET', `/api/services/${cache.id}/database/imports`)).body,
      (await s.call('GET', `/api/projects/${project.id}/events?limit=1000`)).body,
    ]);
    t.match(everything, /ImportRequested/);
    t.notOk(everything.includes(PG_SECRET), 'not the postgres password');
    t.notOk(everything.includes(REDIS_SECRET), 'not the redis password');
  });
});
