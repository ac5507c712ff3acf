import t from 'tap';
import { createProject } from '../helpers/api-suite.js';
import { databaseService, testWebService } from '../helpers/http-resources.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('replicas and nodeLabels: refused on a single server, where one container runs; never more than one task for a database', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const project = await createProject(s, 'Placement');
  const create = (body: Record<string, unknown>) => s.call('POST', `/api/projects/${project.id}/services`, { body });

  const three = await create({ ...testWebService('web'), replicas: 3 });
  t.equal(three.status, 409, JSON.stringify(three.body));
  t.match(three.body.error.message, /need a cluster/);
  t.equal((await create({ ...testWebService('web'), nodeLabels: { zone: 'b' } })).status, 409, 'a choice of nodes needs nodes');
  t.equal((await create({ ...testWebService('web'), replicas: 0 })).status, 400, 'at least one task');
  t.equal((await create({ ...testWebService('web'), nodeLabels: { 'No Spaces': 'x' } })).status, 400, 'a label name Swarm can match');
  t.equal((await create({ ...databaseService('db', 'postgres'), replicas: 2 })).status, 400, 'a database runs one task');

  const one = await create({ ...testWebService('web'), replicas: 1, nodeLabels: {} });
  t.equal(one.status, 200, JSON.stringify(one.body));
  t.match(one.body.service, { replicas: 1, nodeLabels: {} }, 'one task, anywhere: what a single server does');
  const plain = await create(testWebService('other'));
  t.match(plain.body.service, { replicas: 1, nodeLabels: {} }, 'the defaults');
  t.equal((await s.call('PATCH', `/api/services/${one.body.service.id}`, { body: { replicas: 2 } })).status, 409, 'nor by a change');
  const db = await create(databaseService('db', 'postgres'));
  t.equal((await s.call('PATCH', `/api/services/${db.body.service.id}`, { body: { replicas: 1 } })).status, 200);
});
