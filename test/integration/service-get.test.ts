import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('GET /api/services/:serviceId answers the service as the overview shows it, within the key’s scope', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const p = await createProject(s, 'Lookup');
  const img = await createService(s, p.id, { name: 'web', repoUrl: 'docker-image', dockerImage: 'nginx:1.27', internalPort: 80 });
  const db = await createService(s, p.id, { name: 'main-db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] });

  for (const svc of [img, db]) {
    const got = await s.call('GET', `/api/services/${svc.id}`);
    t.equal(got.status, 200, 'no longer 405');
    t.same(Object.keys(got.body), ['service']);
    t.same(got.body.service, (await s.call('GET', `/api/services/${svc.id}/overview`)).body.service, 'the overview’s service, field for field');
  }

  const reader = await createKey(s, 'read', [p.id]);
  t.equal((await s.call('GET', `/api/services/${img.id}`, { key: reader.secret })).status, 200, 'a read key of its project sees it');
  const other = await createProject(s, 'Elsewhere');
  const scoped = await createKey(s, 'write', [other.id]);
  const hidden = await s.call('GET', `/api/services/${img.id}`, { key: scoped.secret });
  t.equal(hidden.status, 404, 'a key scoped to another project does not');
  t.equal(hidden.body.error.code, 'not_found');
  const unknown = await s.call('GET', '/api/services/00000000-0000-4000-8000-000000000000');
  t.equal(unknown.status, 404);
  t.equal((await s.call('GET', '/api/services/not-an-id')).status, 404);
  t.equal((await s.call('PUT', `/api/services/${img.id}`)).status, 405, 'other methods stay unanswered');
});
