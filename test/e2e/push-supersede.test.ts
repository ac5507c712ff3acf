import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { versionedApp } from '../helpers/apps.js';
import { deployEnv, deploymentOf, outcome, probe, waitForDeployment } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { commit, git, push, refOf, remoteLines } from '../helpers/git-push.js';
import { startGitServer } from '../helpers/git-server.js';
import { waitFor } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';
import { deliver, githubPush } from '../helpers/webhooks.js';

t.test('a git push and a webhook delivery replace each other’s queued deployment by one rule', { skip: await requireDocker() }, async (t) => {
  const upstream = await startGitServer();
  t.teardown(() => upstream.close());
  const base = upstream.push('acme/both', versionedApp('v0'));
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: upstream.baseUrl });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Both ways');
  t.teardown(() => removeProjectLeftovers(p.id));
  const svc = await createService(s, p.id, { name: 'both', repoFullName: 'acme/both', branch: 'main', internalPort: 8080 });
  const { secret } = (await s.call('PUT', `/api/services/${svc.id}/auto-deploy`, { body: { enabled: true, provider: 'github' } })).body.autoDeploy;
  const writer = await createKey(s, 'write', [p.id]);
  const remote = `${s.url.replace('://', `://anyone:${writer.secret}@`)}/git/${svc.id}.git`;
  const work = mkdtempSync(join(tmpdir(), 'slipway-push-supersede-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  git(work, 'init', '-q', '-b', 'main');

  const delivered = async (before: string, after: string, message: string) => {
    const r = await deliver(s.url, `/api/hooks/${svc.id}/github`, githubPush(secret, 'refs/heads/main', before, [{ id: after, message, modified: ['server.py'] }]));
    if (r.status !== 202) throw new Error(`delivery ${message}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.deploymentId as string;
  };
  /** The deployment a `git push` of `sha` queued, once it is listed. */
  const pushedDeployment = async (sha: string) => {
    const list = async () => (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments as Record<string, any>[];
    const found = await waitFor(`the deployment of the pushed ${sha.slice(0, 12)}`, async () => (await list()).find((d) => d.trigger === 'push' && d.commitSha === sha), (d) => d !== undefined, 30_000);
    return found!.id as string;
  };
  const ended = (id: string) => waitFor(`deployment ${id} to end`, () => deploymentOf(s, svc.id, id), (d) => d !== undefined && d.status !== 'queued' && d.status !== 'running', 30_000);

  // The first delivery's clone hangs, so the service is busy and every later push waits in the queue.
  const release = upstream.hold('acme/both');
  t.teardown(release);
  const a = upstream.commit('acme/both', versionedApp('vA'), 'main', 'A');
  const first = await delivered(base, a, 'A');
  await waitFor('the first delivery’s deployment to run', () => deploymentOf(s, svc.id, first), (d) => d?.status === 'running', 20_000);
  const b = upstream.commit('acme/both', versionedApp('vB'), 'main', 'B');
  const second = await delivered(a, b, 'B');

  const g = commit(work, versionedApp('vG'), 'G');
  const pushG = push(work, remote, 'HEAD:main');
  const fromG = await pushedDeployment(g);
  const replacedByG = await ended(second);
  t.match(replacedByG, { status: 'canceled', trigger: 'webhook', commitSha: b }, `a git push replaces the delivery’s queued deployment (${outcome(replacedByG!)})`);
  t.equal(replacedByG!.reason, `replaced by a newer push of ${g} (deployment ${fromG})`, 'with the reason a newer delivery gives');

  const c = upstream.commit('acme/both', versionedApp('vC'), 'main', 'C');
  const third = await delivered(b, c, 'C');
  const replacedByC = await ended(fromG);
  t.match(replacedByC, { status: 'canceled', trigger: 'push', commitSha: g }, `a delivery replaces the git push’s queued deployment (${outcome(replacedByC!)})`);
  t.equal(replacedByC!.reason, `replaced by a newer push of ${c} (deployment ${third})`);
  const refusedG = await pushG;
  t.not(refusedG.code, 0, 'that git push is refused…');
  t.equal(remoteLines(refusedG.stderr).at(-1), `Deployment ${fromG} canceled: replaced by a newer push of ${c} (deployment ${third})`, '…saying why');
  t.equal(await refOf(remote, 'refs/heads/main'), '', '…and its branch is not created');

  const h = commit(work, versionedApp('vH'), 'H');
  const pushH = push(work, remote, 'HEAD:main');
  const fromH = await pushedDeployment(h);
  const replacedByH = await ended(third);
  t.match(replacedByH, { status: 'canceled', trigger: 'webhook', commitSha: c, reason: `replaced by a newer push of ${h} (deployment ${fromH})` }, 'a later git push replaces the delivery’s');
  t.equal((await deploymentOf(s, svc.id, first))?.status, 'running', 'the running deployment is never interrupted');

  release();
  t.match(await waitForDeployment(s, svc.id, first), { status: 'succeeded', commitSha: a });
  const pushedH = await pushH;
  t.equal(pushedH.code, 0, pushedH.code === 0 ? 'the newest push deploys and goes through' : pushedH.stderr);
  t.match(await waitForDeployment(s, svc.id, fromH), { status: 'succeeded', trigger: 'push', commitSha: h });
  t.equal(await refOf(remote, 'refs/heads/main'), h, 'its branch moved');
  const hostPort = (await s.call('GET', `/api/services/${svc.id}`)).body.service.hostPort;
  t.same(await probe(hostPort), { status: 200, body: 'vH' }, 'the newest push answers');
});
