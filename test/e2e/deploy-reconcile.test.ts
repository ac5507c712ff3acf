import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deployEnv, deploymentOf, logLines, waitForDeployment } from '../helpers/deploy.js';
import { containersOf, docker, requireDocker, removeProjectLeftovers, TEST_IMAGES } from '../helpers/docker.js';
import { testWebService } from '../helpers/http-resources.js';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { startGitServer } from '../helpers/git-server.js';
import { eventually, waitFor } from '../helpers/net.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The deployer stops hearing events, as when one never reaches it: only its periodic reconcile is left. */
function deafen(s: TestServer) {
  s.app.deployer!.handle = async () => undefined;
}

t.test('a queued deployment the deployer never heard of is scheduled by its reconcile', async (t) => {
  const s = await startTestServer({ SLIPWAY_RECONCILE_INTERVAL: '0.2' }); // no engine: a run fails at once, with the reason
  t.teardown(() => s.close());
  const p = await createProject(s, 'Unheard');
  const svc = await createService(s, p.id, { name: 'img', repoUrl: 'docker-image', dockerImage: 'nginx:1', branch: 'main', runtimeMode: 'web', internalPort: 80 });
  deafen(s);
  const queued = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment;
  t.equal(queued.status, 'queued');
  const done = await waitForDeployment(s, svc.id, queued.id, 30_000);
  t.match(done, { status: 'failed', reason: /^Docker engine unreachable/ }, 'it was taken and run');
});

t.test('an abort request the deployer never heard of is acted on by its reconcile', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const marker = `unheard-abort-${Date.now()}`;
  git.push('acme/slow', { Dockerfile: `FROM ${TEST_IMAGES.python}\nRUN echo ${marker} && sleep 120\n` });
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_RECONCILE_INTERVAL: '0.2' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Unheard abort');
  t.teardown(() => removeProjectLeftovers(p.id));
  const slow = await createService(s, p.id, { name: 'slow', repoFullName: 'acme/slow', branch: 'main', internalPort: 8080 });
  const running = (await s.call('POST', `/api/services/${slow.id}/deployments`)).body.deployment;
  await waitFor('the slow build to print its marker', () => logLines(s, running.id), (lines) => lines.some((l) => l.includes(marker)), 60_000);

  deafen(s);
  t.same((await s.call('POST', `/api/deployments/${running.id}/abort`)).body, { accepted: true });
  // The build sleeps for 120 s: ending well before that means the run was stopped.
  const aborted = await waitForDeployment(s, slow.id, running.id, 30_000);
  t.match(aborted, { status: 'aborted', reason: 'aborted by request' });
  const buildContainers = async () => (await docker.listContainers({ all: true })).filter((c) => c.Command.includes(marker));
  t.same(await eventually(buildContainers, (list) => list.length === 0, 20_000), [], 'the engine stopped the build');
});

t.test('reconcile over read models that lag behind a deployment that went live leaves its container running', { skip: await requireDocker() }, async (t) => {
  // No proxy: nothing in the run waits for the read models, so the run ends while they are held still.
  const { env } = await deployEnv({ SLIPWAY_PROXY: 'off', SLIPWAY_RECONCILE_INTERVAL: '3600' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Lagging');
  t.teardown(() => removeProjectLeftovers(p.id));
  const svc = await createService(s, p.id, testWebService('web'));
  const queued = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment;
  await eventually(() => deploymentOf(s, svc.id, queued.id), (d) => d?.status === 'running', 30_000);

  // The read models stop here: they show the deployment running and the service without a release.
  await s.app.runner.stop();
  const types = async () => (await s.app.store.readStream(`deployment-${queued.id}`)).map((e) => e.type);
  t.ok((await eventually(types, (list) => list.includes('DeploymentSucceeded'), 60_000)).includes('DeploymentSucceeded'), 'the deployment went live');
  const live = await eventually(() => containersOf({ [LABEL.deployment]: queued.id }), (list) => list.length === 1 && list[0]!.State === 'running', 10_000);
  t.equal(live.length, 1, 'its container runs');
  // Its run has ended in this process: for the deployer it is a `running` deployment without a live run.
  await new Promise((r) => setTimeout(r, 1_000));
  await s.app.deployer!.reconcile();

  const after = await containersOf({ [LABEL.deployment]: queued.id });
  t.same(after.map((c) => [c.Id, c.State]), [[live[0]!.Id, 'running']], 'the released container was left running');
  t.notOk((await types()).includes('DeploymentFailed'), 'and the deployment was not failed');

  await s.app.runner.start();
  const caughtUp = await eventually(() => deploymentOf(s, svc.id, queued.id), (d) => d?.status === 'succeeded', 10_000);
  t.match(caughtUp, { status: 'succeeded' }, 'once the read models catch up they show it succeeded');
});
