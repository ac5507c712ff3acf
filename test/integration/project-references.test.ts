import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { assertError } from '../helpers/http-errors.js';
import { testWebService } from '../helpers/http-resources.js';
import { startTestServer } from '../helpers/test-server.js';

const s = await startTestServer();
t.teardown(() => s.close());

type Edge = { fromServiceId: string; key: string; toServiceId: string; toKey: string };
/** Edges in one order, whatever order the variables were stored in. */
const sorted = (edges: Edge[]) => [...edges].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

const SECRET = 'postgresql://app:s3cret-password@db:5432/shop';

t.test('GET /api/projects/:id/references: the edges between services, never a value', async (t) => {
  const shop = await createProject(s, 'Shop');
  const db = await createService(s, shop.id, { ...testWebService('db'), env: [{ key: 'DATABASE_URL', value: SECRET }] });
  const cache = await createService(s, shop.id, { ...testWebService('Cache Layer'), env: [{ key: 'REDIS_HOST', value: 'cache' }] });
  const web = await createService(s, shop.id, {
    ...testWebService('web'),
    env: [
      { key: 'DATABASE_URL', value: '${db.DATABASE_URL}' },
      { key: 'CACHE', value: 'redis://${Cache Layer.REDIS_HOST}:6379' },
      { key: 'MISSING', value: '${nowhere.X}' },
      { key: 'SELF', value: '${web.PORT}' },
    ],
  });

  const answer = await s.call('GET', `/api/projects/${shop.id}/references`);
  t.equal(answer.status, 200);
  t.same(Object.keys(answer.body), ['references']);
  t.same(
    sorted(answer.body.references),
    sorted([
      { fromServiceId: web.id, key: 'DATABASE_URL', toServiceId: db.id, toKey: 'DATABASE_URL' },
      { fromServiceId: web.id, key: 'CACHE', toServiceId: cache.id, toKey: 'REDIS_HOST' },
    ]),
    'by slug and by name; a missing service and the service itself are no edge',
  );
  const text = JSON.stringify(answer.body);
  for (const value of [SECRET, 's3cret-password', '${db.DATABASE_URL}', 'redis://']) t.notOk(text.includes(value), `no value in the answer (${value})`);

  t.test('a change to a variable changes the edges', async (t) => {
    t.equal((await s.call('POST', `/api/services/${db.id}/env`, { body: { key: 'CACHE_URL', value: '${cache-layer.REDIS_HOST}' } })).status, 200);
    const env = (await s.call('GET', `/api/services/${web.id}/overview`)).body.env as { id: string; key: string }[];
    t.equal((await s.call('DELETE', `/api/services/${web.id}/env/${env.find((e) => e.key === 'CACHE')!.id}`)).status, 200);
    const after = (await s.call('GET', `/api/projects/${shop.id}/references`)).body.references;
    t.same(
      sorted(after),
      sorted([
        { fromServiceId: db.id, key: 'CACHE_URL', toServiceId: cache.id, toKey: 'REDIS_HOST' },
        { fromServiceId: web.id, key: 'DATABASE_URL', toServiceId: db.id, toKey: 'DATABASE_URL' },
      ]),
    );
  });

  t.test('scoped like every project read: another project answers 404, exactly like a missing one', async (t) => {
    const other = await createProject(s, 'Other');
    const scoped = await createKey(s, 'read', [other.id]);
    const own = await s.call('GET', `/api/projects/${other.id}/references`, { key: scoped.secret });
    t.same(own.body, { references: [] }, 'its own project, with no services');
    const hidden = await s.call('GET', `/api/projects/${shop.id}/references`, { key: scoped.secret });
    assertError(t, hidden, 404, 'not_found', "another project's references");
    const missing = await s.call('GET', '/api/projects/00000000-0000-4000-8000-000000000000/references', { key: scoped.secret });
    t.same(hidden.body, missing.body, 'answered exactly like a project that does not exist');
    assertError(t, await s.call('GET', '/api/projects/shop/references'), 404, 'not_found', 'a slug is no project id here');
  });
});
