import t from 'tap';
import { NO_RELEASE } from '../../commands/service/aggregate.js';
import { releaseService } from '../../commands/service/handlers.js';
import { runAdminCommand } from '../../src/cli/admin-commands.js';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { deploy } from '../helpers/deploy.js';
import { dumpReadModels } from '../helpers/read-models.js';
import { startTestServer } from '../helpers/test-server.js';

// The test server's Docker socket does not exist: every deployment fails at once, which is what is wanted here.
t.test('a service says failed when its last deployment failed and nothing runs; stopped and active win over a failure', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const p = await createProject(s, 'Statuses');
  const svc = await createService(s, p.id, { name: 'img', repoUrl: 'docker-image', dockerImage: 'nginx:1.27', internalPort: 80 });
  const status = async () => (await s.call('GET', `/api/services/${svc.id}/overview`)).body.service.status as string;
  const listed = async () => (await s.call('GET', `/api/projects/${p.id}`)).body.project.services[0].status as string;
  const release = async (deploymentId: string | null) => {
    const r = await releaseService(s.app.commandContext('test'), svc.id, deploymentId ? { deploymentId, containerName: 'c', upstreamPort: null, buildMethod: null } : NO_RELEASE);
    await s.app.settle(r.position);
  };

  t.equal(await status(), 'idle', 'never deployed: idle');
  const first = await deploy(s, svc.id);
  t.equal(first.done.status, 'failed');
  t.equal(await status(), 'failed', 'its only deployment failed: failed');
  t.equal(await listed(), 'failed', 'in the list too');

  await release(first.done.id);
  t.equal(await status(), 'active', 'a release runs: active');
  await deploy(s, svc.id);
  t.equal(await status(), 'active', 'a failed redeploy leaves the running release active');

  const reader = await createKey(s, 'read', null);
  t.equal((await s.call('POST', `/api/services/${svc.id}/stop`, { key: reader.secret })).status, 403, 'stop needs a write key');
  const other = await createProject(s, 'Elsewhere');
  const scoped = await createKey(s, 'write', [other.id]);
  t.equal((await s.call('POST', `/api/services/${svc.id}/stop`, { key: scoped.secret })).status, 404, 'and one whose scope holds the service');
  t.equal((await s.call('POST', `/api/services/${svc.id}/stop`)).status, 200);
  await deploy(s, svc.id);
  t.equal(await status(), 'stopped', 'a failed deployment of a stopped service leaves it stopped');

  await release(null);
  t.equal(await status(), 'idle', 'its release undone: idle');

  const live = await dumpReadModels(s.app.db);
  await runAdminCommand(s.app, { command: 'projections.rebuild', projectors: [] });
  t.same((await dumpReadModels(s.app.db)).rm_services, live.rm_services, 'rebuilt equals live');
});
