import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { deployEnv, logLines, waitForDeployment } from '../helpers/deploy.js';
import { docker, requireDocker, imagesOf, removeProjectLeftovers, TEST_IMAGES } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { eventually, waitFor } from '../helpers/net.js';
import { readSse } from '../helpers/sse.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

async function statusOf(s: TestServer, serviceId: string, id: string) {
  return ((await s.call('GET', `/api/services/${serviceId}/deployments`)).body.deployments as { id: string; status: string }[]).find((d) => d.id === id)?.status;
}

t.test('Docker unreachable: the deployment fails with the reason, it does not hang', async (t) => {
  const s = await startTestServer(); // its default engine socket does not exist
  t.teardown(() => s.close());
  const p = await createProject(s, 'No engine');
  const svc = await createService(s, p.id, { name: 'img', repoUrl: 'docker-image', dockerImage: 'nginx:1', branch: 'main', runtimeMode: 'web', internalPort: 80 });
  const queued = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment;
  const done = await waitForDeployment(s, svc.id, queued.id, 30_000);
  t.match(done, { status: 'failed', reason: /^Docker engine unreachable: .*nonexistent\/docker\.sock/ });
  t.match((await logLines(s, queued.id)).join('\n'), /Deployment failed: Docker engine unreachable/);
  t.match((await s.call('GET', `/api/services/${svc.id}/overview`)).body.service, { status: 'failed', reachable: false, lastDeployedAt: null }, 'failed, not idle');
});

t.test('abort stops a build for real; queued deployments abort at once or are canceled when superseded; finished ones answer 409', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const marker = `slow-build-${Date.now()}`;
  git.push('acme/slow', { Dockerfile: `FROM ${TEST_IMAGES.python}\nRUN echo ${marker} && sleep 120\n` });
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_DEPLOY_CONCURRENCY: '1' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Aborts');
  t.teardown(() => removeProjectLeftovers(p.id));
  const slow = await createService(s, p.id, { name: 'slow', repoFullName: 'acme/slow', branch: 'main', internalPort: 8080 });
  const quick = await createService(s, p.id, { name: 'quick', repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web, branch: 'main', runtimeMode: 'web', internalPort: 8000 });

  const running = (await s.call('POST', `/api/services/${slow.id}/deployments`)).body.deployment;
  await waitFor('the slow build to print its marker', () => logLines(s, running.id), (lines) => lines.some((l) => l.includes(marker)), 60_000);
  t.equal(await statusOf(s, slow.id, running.id), 'running');

  // One deployment at a time here: these wait.
  const queue = async () => (await s.call('POST', `/api/services/${quick.id}/deployments`)).body.deployment.id as string;
  const lone = await queue();
  t.same((await s.call('POST', `/api/deployments/${lone}/abort`)).body, { accepted: true });
  t.equal(await statusOf(s, quick.id, lone), 'aborted', 'a queued deployment ends at once');
  const waiting = [await queue(), await queue(), await queue()];

  const stream = await readSse(`${s.url}/api/deployments/${running.id}/stream`, s.key);
  await waitFor('a ping on the deployment stream', async () => stream.events.map((e) => e.event), (events) => events.includes('ping'), 8_000);
  t.match(stream.events.find((e) => e.event === 'ping')?.data, { t: Number }, 'a ping every few seconds while it runs');

  t.same((await s.call('POST', `/api/deployments/${running.id}/abort`)).body, { accepted: true });
  const aborted = await waitForDeployment(s, slow.id, running.id, 30_000);
  t.match(aborted, { status: 'aborted', reason: 'aborted by request' });
  await stream.ended;
  t.match(stream.events.filter((e) => e.event === 'log').at(-1)?.data.line, /^Deployment aborted: aborted by request/, 'the stream ends with the abort');
  // The build's container is the engine's, not labelled: find it by its command.
  const buildContainers = async () => (await docker.listContainers({ all: true })).filter((c) => c.Command.includes(marker));
  t.same(await eventually(buildContainers, (list) => list.length === 0, 20_000), [], 'the engine stopped the build and removed its container');
  t.same(await imagesOf({ [LABEL.deployment]: running.id }), [], 'no image was left');

  const conflict = await s.call('POST', `/api/deployments/${running.id}/abort`);
  t.equal(conflict.status, 409, 'aborting a finished deployment is a conflict');
  t.match(conflict.body, { error: { code: 'conflict' } });

  const newest = await waitForDeployment(s, quick.id, waiting[2]!, 60_000);
  t.equal(newest.status, 'succeeded', 'the newest queued deployment ran');
  for (const older of waiting.slice(0, 2)) {
    t.match(await waitForDeployment(s, quick.id, older), { status: 'canceled', reason: /^superseded by the newer deployment / }, 'older queued ones are canceled, superseded');
  }
  t.equal((await s.call('POST', '/api/deployments/not-a-deployment/abort')).status, 404);
});
