import createClient from 'openapi-fetch';
import t from 'tap';
import type { paths } from '../../src/shared/api-types.js';
import { startTestServer } from '../helpers/test-server.js';

// A client generated from the document (openapi-typescript types, openapi-fetch calls) drives the server.
const s = await startTestServer();
t.teardown(() => s.close());
const api = createClient<paths>({ baseUrl: s.url, headers: { authorization: `Bearer ${s.key}` } });

t.test('a project, a service, a variable and a deployment through the generated client', async (t) => {
  const created = await api.POST('/api/projects', { body: { name: 'Typed', description: 'through openapi-fetch' } });
  t.equal(created.response.status, 200);
  const project = created.data!.project;
  t.match(project, { name: 'Typed', slug: 'typed', serviceCount: 0 });

  const service = await api.POST('/api/projects/{projectId}/services', {
    params: { path: { projectId: project.id } },
    body: { name: 'web', repoUrl: 'docker-image', dockerImage: 'slipway/test-web:latest', branch: 'main', runtimeMode: 'web', internalPort: 8080, env: [] },
  });
  t.equal(service.response.status, 200, JSON.stringify(service.error));
  const serviceId = service.data!.service.id;

  const variable = await api.POST('/api/services/{serviceId}/env', { params: { path: { serviceId } }, body: { key: 'GREETING', value: 'hello' } });
  t.equal(variable.response.status, 200);
  const overview = await api.GET('/api/services/{serviceId}/overview', { params: { path: { serviceId } } });
  t.ok(overview.data!.env.some((v) => v.key === 'GREETING'), 'the variable is on the service');

  const deployment = await api.POST('/api/services/{serviceId}/deployments', { params: { path: { serviceId } } });
  t.equal(deployment.data!.deployment.status, 'queued');
  const list = await api.GET('/api/services/{serviceId}/deployments', { params: { path: { serviceId } } });
  t.same(list.data!.deployments.map((d) => d.id), [deployment.data!.deployment.id]);

  const refused = await api.POST('/api/projects', { body: { name: '', description: '' } });
  t.equal(refused.response.status, 400);
  t.equal(refused.error!.error.code, 'validation_failed', 'errors come typed as the error body');
});
