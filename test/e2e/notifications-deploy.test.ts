import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deployEnv, waitForDeployment } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { startReceiver, verifySlipwaySignature } from '../helpers/notification-receivers.js';
import { destinationOf } from '../helpers/outbound.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('a build that fails on the real engine is notified, and the links lead to its log and its explanation', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/broken', { Dockerfile: `FROM ${TEST_IMAGES.python}\nRUN echo about-to-fail && exit 3\n` });
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { env } = await deployEnv({ SLIPWAY_PROXY: 'off', SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url) });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Noisy');
  t.teardown(() => removeProjectLeftovers(p.id));

  const created = await s.call('POST', '/api/notification-channels', { body: { name: 'team', type: 'webhook', config: { url: `${receiver.url}/slipway` }, projectIds: [p.id] } });
  t.equal(created.status, 200, JSON.stringify(created.body));
  const broken = await createService(s, p.id, { name: 'broken', repoFullName: 'acme/broken', branch: 'main', internalPort: 8080 });
  const queued = (await s.call('POST', `/api/services/${broken.id}/deployments`)).body.deployment;
  const done = await waitForDeployment(s, broken.id, queued.id);
  t.equal(done.status, 'failed');

  const [hit] = await receiver.waitFor(1, '/slipway', 30_000);
  t.ok(verifySlipwaySignature(created.body.secret, hit!.headers['x-slipway-signature'] as string, hit!.body), 'signed');
  const body = JSON.parse(hit!.body);
  t.match(body, { event: 'deployment.failed', service: { id: broken.id, name: 'broken' }, deployment: { id: queued.id }, reason: done.reason });

  // `links` open the dashboard's page for a person; `apiLinks`, followed with a key, answer the log and the explanation.
  const path = (url: string) => url.slice(s.url.length);
  const page = await fetch(body.links.deployment);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/, "the deployment's link is a page of the dashboard");
  t.ok(body.apiLinks.log.startsWith(s.url));
  const log = await s.call('GET', path(body.apiLinks.log));
  t.equal(log.status, 200);
  t.ok(JSON.stringify(log.body).includes('about-to-fail'), 'the log link shows the build’s own lines');
  const explained = await s.call('POST', path(body.explanationUrl), { body: { providerId: 'builtin' } });
  t.equal(explained.status, 200, JSON.stringify(explained.body));
  t.type(explained.body.explanation.summary, 'string');
});
