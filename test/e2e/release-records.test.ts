import { rmSync } from 'node:fs';
import t from 'tap';
import { recordImagePruned } from '../../commands/release/handlers.js';
import type { EventStore } from '../../src/eventstore/port.js';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { versionedApp } from '../helpers/apps.js';
import { requireCaddy } from '../helpers/caddy.js';
import { deploy, deployEnv, logLines, outcome } from '../helpers/deploy.js';
import { imagesOf, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { eventually } from '../helpers/net.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

t.setTimeout(600_000);

/** The store refuses every append holding an event of type `refused` (as a store that fails at that moment would). */
function refuseAppends(store: EventStore) {
  const append = store.append.bind(store);
  const state = { refused: null as string | null, count: 0 };
  store.append = (streamId, events, expected) => {
    if (state.refused !== null && events.some((e) => e.type === state.refused)) {
      state.count++;
      return Promise.reject(new Error(`injected: the store refused ${state.refused}`));
    }
    return append(streamId, events, expected);
  };
  return state;
}

type Release = { id: string; version: number; deploymentId: string; imageId: string; current: boolean; available: boolean };
const releasesOf = async (s: TestServer, serviceId: string) => (await s.call('GET', `/api/services/${serviceId}/releases`)).body.releases as Release[];
const imageIdsOf = async (serviceId: string) => new Set((await imagesOf({ [LABEL.service]: serviceId })).map((i) => i.Id));

t.test('a release that went live is in its history after a refused append and a restart; an image goes only after its release is recorded pruned', { skip: (await requireDocker()) || (await requireCaddy()) }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const first = await startTestServer(env);
  let s = first;
  t.teardown(async () => {
    await s.close();
    rmSync(first.dataDir, { recursive: true, force: true });
  });
  const project = await createProject(s, 'Records');
  t.teardown(() => removeProjectLeftovers(project.id));
  const svc = await createService(s, project.id, { name: 'rec', repoFullName: 'acme/rec', branch: 'main', internalPort: 8080 });
  t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { releasesKept: 1, watchSeconds: 0 } })).status, 200);
  for (const version of ['v1', 'v2']) {
    git.push('acme/rec', versionedApp(version));
    t.equal(outcome((await deploy(s, svc.id)).done), 'succeeded', `${version} deployed`);
  }
  const [v2, v1] = await releasesOf(s, svc.id);
  t.match([v2, v1], [{ version: 2, available: true }, { version: 1, available: true }]);

  // v3 goes live; pruning v1 (beyond releasesKept: 1) cannot be recorded.
  const store = refuseAppends(s.app.store);
  store.refused = 'ReleaseImagePruned';
  git.push('acme/rec', versionedApp('v3'));
  t.equal(outcome((await deploy(s, svc.id)).done), 'succeeded', 'v3 deployed');
  await eventually(async () => store.count, (n) => n > 0, 60_000);
  t.match((await releasesOf(s, svc.id)).find((r) => r.id === v1!.id), { available: true }, 'v1 is not recorded pruned');
  t.ok((await imageIdsOf(svc.id)).has(v1!.imageId), 'so its image is still there: a release the log calls available has its image');

  // v4 goes live; its release cannot be recorded while this process runs.
  store.refused = 'ReleaseRecorded';
  git.push('acme/rec', versionedApp('v4'));
  const { done: v4 } = await deploy(s, svc.id);
  t.equal(outcome(v4), 'succeeded', 'v4 deployed');
  const v4Success = (await s.app.store.readStream(`deployment-${v4.id}`)).find((e) => e.type === 'DeploymentSucceeded');
  t.match(v4Success?.data, { release: { releaseId: String, imageId: /^sha256:/ } }, 'its success carries the release, in the same append');
  await eventually(() => logLines(s, v4.id), (lines) => lines.some((l) => /release could not be recorded/.test(l)), 60_000);
  t.notOk((await releasesOf(s, svc.id)).some((r) => r.deploymentId === v4.id), 'not in the history yet');

  await s.stopKeepingData();
  s = await startTestServer(env, first.dataDir);
  const after = await eventually(() => releasesOf(s, svc.id), (list) => list.some((r) => r.deploymentId === v4.id), 30_000);
  const v4Release = after.find((r) => r.deploymentId === v4.id);
  t.match(v4Release, { version: 4, current: true, available: true, id: (v4Success!.data.release as { releaseId: string }).releaseId }, 'recorded at start from its success');
  t.ok((await imageIdsOf(svc.id)).has(v4Release!.imageId), 'its image kept by the start-up sweep');

  // A crash after the intent: v3 recorded pruned, its image not yet removed. The restart finishes the removal.
  const v3 = after.find((r) => r.version === 3)!;
  t.ok((await imageIdsOf(svc.id)).has(v3.imageId), 'v3’s image is there');
  await recordImagePruned(s.app.commandContext('test'), svc.id, v3.id);
  await s.stopKeepingData();
  s = await startTestServer(env, first.dataDir);
  t.match((await releasesOf(s, svc.id)).find((r) => r.id === v3.id), { available: false });
  t.notOk((await eventually(() => imageIdsOf(svc.id), (ids) => !ids.has(v3.imageId), 30_000)).has(v3.imageId), 'its image is removed at start');
  t.ok((await imageIdsOf(svc.id)).has(v4Release!.imageId), 'the current one stays');
});
