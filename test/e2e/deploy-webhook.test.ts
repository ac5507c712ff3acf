import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { versionedApp } from '../helpers/apps.js';
import { deployEnv, deploymentOf, outcome, probe, waitForDeployment } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { waitFor } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';
import { deliver, githubPush } from '../helpers/webhooks.js';

t.test('pushes delivered by webhook deploy exactly their commit; a newer push replaces a queued one', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const base = git.push('acme/hooked', versionedApp('v0'));
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Webhook');
  t.teardown(() => removeProjectLeftovers(p.id));
  const svc = await createService(s, p.id, { name: 'hooked', repoFullName: 'acme/hooked', branch: 'main', internalPort: 8080 });
  const { secret } = (await s.call('PUT', `/api/services/${svc.id}/auto-deploy`, { body: { enabled: true, provider: 'github' } })).body.autoDeploy;
  const push = async (before: string, after: string, message: string) => {
    const r = await deliver(s.url, `/api/hooks/${svc.id}/github`, githubPush(secret, 'refs/heads/main', before, [{ id: after, message, modified: ['server.py'] }]));
    if (r.status !== 202) throw new Error(`push ${message}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.deploymentId as string;
  };

  // The first push's clone hangs, so the service is busy while the next two arrive.
  const release = git.hold('acme/hooked');
  t.teardown(release);
  const a = git.commit('acme/hooked', versionedApp('vA'), 'main', 'A');
  const first = await push(base, a, 'A');
  await waitFor('the first pushed deployment to run', () => deploymentOf(s, svc.id, first), (d) => d?.status === 'running', 20_000);
  const b = git.commit('acme/hooked', versionedApp('vB'), 'main', 'B');
  const second = await push(a, b, 'B');
  const c = git.commit('acme/hooked', versionedApp('vC'), 'main', 'C');
  const third = await push(b, c, 'C');
  const replaced = await deploymentOf(s, svc.id, second);
  t.match(replaced, { status: 'canceled', trigger: 'webhook', commitSha: b }, 'the queued push is replaced: canceled…');
  t.ok(replaced?.reason.includes(c), `…naming the newer commit (${outcome(replaced!)})`);
  t.equal((await deploymentOf(s, svc.id, first))?.status, 'running', 'the running one is not interrupted');
  // The branch moves on before the third push's clone runs.
  git.commit('acme/hooked', versionedApp('vD'), 'main', 'D');
  release();

  const firstDone = await waitForDeployment(s, svc.id, first);
  t.match(firstDone, { status: 'succeeded', commitSha: a }, `the first push deployed A (${outcome(firstDone)})`);
  const done = await waitForDeployment(s, svc.id, third);
  t.match(done, { status: 'succeeded', trigger: 'webhook', commitSha: c }, `the third push deployed exactly C, not the branch’s D (${outcome(done)})`);
  const hostPort = (await s.call('GET', `/api/services/${svc.id}`)).body.service.hostPort;
  t.same(await probe(hostPort), { status: 200, body: 'vC' }, 'C’s code answers');
  const verdicts = (await s.call('GET', `/api/services/${svc.id}/auto-deploy/deliveries`)).body.deliveries.map((d: { verdict: string; commitSha: string }) => [d.verdict, d.commitSha]);
  t.same(verdicts, [['deployed', c], ['deployed', b], ['deployed', a]]);
});
