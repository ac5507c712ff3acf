import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
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

t.test('imports from a Postgres or Redis URL: another service by name, an unreachable host, no password anywhere', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_DEPLOY_CONCURRENCY: '4' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Imports');
  t.teardown(() => removeProjectLeftovers(project.id));
  const legacy = await createService(s, project.id, database('legacy-db', 'postgres'));
  const main = await createService(s, project.id, database('main-db', 'postgres'));
  const oldCache = await createService(s, project.id, database('old-cache', 'redis'));
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
    t.equal(done.sourceLabel, 'postgresql://postgres@legacy-db:5432/legacy_db', 'the label has no password');
    t.same((await sql(s, main.id, 'select name from customers order by id')).rows, [{ name: 'Ada' }, { name: 'Grace' }]);
  });

  t.test('postgres: an unreachable host fails with a reason and no password', async (t) => {
    const { done } = await imported(s, main.id, { sourceUrl: `postgresql://postgres:${PG_SECRET}@nowhere.invalid:5432/x` }, 'postgres-url');
    t.equal(done.status, 'failed');
    t.match(done.error, /nowhere\.invalid|could not translate|resolve/);
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
    const unreachable = await imported(s, cache.id, { sourceUrl: `redis://default:${REDIS_SECRET}@127.0.0.1:1` }, 'redis-url');
    t.equal(unreachable.done.status, 'failed');
    t.notOk(unreachable.done.error.includes(REDIS_SECRET));
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
