import t from 'tap';
import { REJECTED_WEBHOOK_WINDOW_MS } from '../../src/processes/notification/notification-causes.js';
import { recordCertificateChange } from '../../commands/service/handlers.js';
import { createKey, createProject, createService } from '../helpers/http-resources.js';
import { startReceiver, startSmtpServer, verifySlipwaySignature } from '../helpers/notification-receivers.js';
import { eventually } from '../helpers/net.js';
import { destinationOf } from '../helpers/outbound.js';
import { deliver, githubPush } from '../helpers/webhooks.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// Deployments fail at once here (no Docker engine is configured): a real DeploymentFailed, quickly.
async function failingDeployment(s: TestServer, projectId: string) {
  const service = await createService(s, projectId, { name: `web-${Math.random().toString(36).slice(2, 7)}`, repoUrl: 'https://github.com/example/app', branch: 'main', internalPort: 3000 });
  const queued = await s.call('POST', `/api/services/${service.id}/deployments`);
  t.equal(queued.status, 200, 'deployment queued');
  return { service, deploymentId: queued.body.deployment.id as string };
}

async function deliveriesOf(s: TestServer, channelId: string, until: (d: any[]) => boolean, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const got = await s.call('GET', `/api/notification-channels/${channelId}/deliveries`);
    if (until(got.body.deliveries)) return got.body.deliveries as any[];
    if (Date.now() > end) throw new Error(`deliveries did not get there: ${JSON.stringify(got.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

t.test('a failed deployment reaches a webhook, signed, with links to its explanation and log; secrets are never shown', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const s = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url), SLIPWAY_NOTIFICATION_RETRY: '0.2' });
  t.teardown(() => s.close());
  const p = await createProject(s, 'Shop');

  const created = await s.call('POST', '/api/notification-channels', { body: { name: 'ops', type: 'webhook', config: { url: `${receiver.url}/hook` } } });
  t.equal(created.status, 200, JSON.stringify(created.body));
  const secret = created.body.secret as string;
  t.match(secret, /^[0-9a-f]{64}$/, 'a signing secret is made and shown once');
  const channel = created.body.channel;
  t.same(channel.config, { url: `${receiver.url}/…` }, 'the secret is not part of the config shown, the URL only masked');
  t.same(channel.events, ['deployment.failed', 'deployment.rolled_back', 'service.unhealthy', 'backup.failed', 'certificate.failed', 'certificate.expiring', 'webhook.rejected', 'node.down', 'job.failed'], 'every failure, no success');
  t.equal(channel.projectIds, null);
  t.notOk(JSON.stringify((await s.call('GET', `/api/notification-channels/${channel.id}`)).body).includes(secret), 'GET does not show the secret');

  const { service, deploymentId } = await failingDeployment(s, p.id);
  const [hit] = await receiver.waitFor(1, '/hook');
  t.ok(verifySlipwaySignature(secret, hit!.headers['x-slipway-signature'] as string, hit!.body), 'the signature verifies as a receiver checks it');
  t.notOk(verifySlipwaySignature('another secret of enough length', hit!.headers['x-slipway-signature'] as string, hit!.body), 'and not with another secret');
  const body = JSON.parse(hit!.body);
  t.equal(hit!.headers['x-slipway-delivery'], body.id, 'X-Slipway-Delivery is the notification id');
  t.match(body, {
    event: 'deployment.failed',
    project: { id: p.id, name: 'Shop' },
    service: { id: service.id, name: service.name },
    deployment: { id: deploymentId },
    reason: String,
    explanationUrl: `${s.url}/api/deployments/${deploymentId}/explain-failure`,
    links: { service: `${s.url}/services/${service.id}`, deployment: `${s.url}/deployments/${deploymentId}` },
    apiLinks: { deployment: `${s.url}/api/deployments/${deploymentId}`, log: `${s.url}/api/deployments/${deploymentId}/logs`, explanation: `${s.url}/api/deployments/${deploymentId}/explain-failure` },
  });
  const deployment = (await s.call('GET', `/api/services/${service.id}/deployments`)).body.deployments.find((d: any) => d.id === deploymentId);
  t.equal(body.reason, deployment.reason, 'the reason is the deployment’s');

  const deliveries = await deliveriesOf(s, channel.id, (d) => d[0]?.status === 'delivered');
  t.equal(deliveries.length, 1);
  t.match(deliveries[0], { id: body.id, event: 'deployment.failed', attempts: [{ attempt: 1, status: 200, delivered: true }] });

  const log = await s.app.store.readAll({ after: null, maxCount: 100_000 });
  t.notOk(JSON.stringify(log).includes(secret), 'the secret is sealed in the log');
});

t.test('a receiver that fails twice then succeeds has exactly one delivery accepted; a 4xx is never retried', async (t) => {
  const receiver = await startReceiver(({ path, index }) => (path === '/flaky' ? (index < 2 ? 503 : 200) : 410));
  t.teardown(() => receiver.close());
  const s = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url), SLIPWAY_NOTIFICATION_RETRY: '0.2' });
  t.teardown(() => s.close());
  const p = await createProject(s, 'Flaky');
  const flaky = (await s.call('POST', '/api/notification-channels', { body: { name: 'flaky', type: 'webhook', config: { url: `${receiver.url}/flaky` } } })).body.channel;
  const gone = (await s.call('POST', '/api/notification-channels', { body: { name: 'gone', type: 'webhook', config: { url: `${receiver.url}/gone` } } })).body.channel;
  await failingDeployment(s, p.id);

  const flakyDeliveries = await deliveriesOf(s, flaky.id, (d) => d[0]?.status === 'delivered');
  t.match(flakyDeliveries[0].attempts, [
    { attempt: 1, status: 503, delivered: false },
    { attempt: 2, status: 503, delivered: false },
    { attempt: 3, status: 200, delivered: true },
  ]);
  const goneDeliveries = await deliveriesOf(s, gone.id, (d) => d[0]?.status === 'abandoned');
  t.equal(goneDeliveries[0].attempts.length, 1, 'one attempt only');
  t.match(goneDeliveries[0].abandonReason, /refused it \(410\)/);
  await new Promise((r) => setTimeout(r, 1000));
  const hits = receiver.received.filter((r) => r.path === '/flaky');
  t.equal(hits.filter((r) => r.answered === 200).length, 1, 'exactly one accepted');
  t.equal(new Set(hits.map((r) => r.headers['x-slipway-delivery'])).size, 1, 'every attempt carries the same delivery id');
  t.equal(receiver.received.filter((r) => r.path === '/gone').length, 1, 'the 410 was not retried');
});

t.test('Slipway restarted mid-retry still delivers, once', async (t) => {
  let up = false;
  const receiver = await startReceiver(() => (up ? 200 : 502));
  t.teardown(() => receiver.close());
  const env = { SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url), SLIPWAY_NOTIFICATION_RETRY: '0.5' };
  const first = await startTestServer(env);
  const p = await createProject(first, 'Restart');
  const channel = (await first.call('POST', '/api/notification-channels', { body: { name: 'r', type: 'webhook', config: { url: `${receiver.url}/r` } } })).body.channel;
  await failingDeployment(first, p.id);
  await receiver.waitFor(1, '/r');
  await first.stopKeepingData();
  up = true;
  const before = receiver.received.length;
  const second = await startTestServer(env, first.dataDir);
  t.teardown(() => second.close().then(() => import('node:fs').then((fs) => fs.rmSync(first.dataDir, { recursive: true, force: true }))));
  const deliveries = await deliveriesOf(second, channel.id, (d) => d[0]?.status === 'delivered');
  t.equal(deliveries.length, 1);
  t.ok(receiver.received.length > before, 'the restarted server sent it');
  await new Promise((r) => setTimeout(r, 1000));
  t.equal(receiver.received.filter((r) => r.answered === 200).length, 1, 'delivered once');
});

t.test('Slack- and Discord-shaped receivers get their formats; email goes through a real SMTP server with text and HTML', async (t) => {
  const receiver = await startReceiver((r) => (r.path === '/discord' ? 204 : 200));
  // No login here: a password needs TLS (test/integration/notification-secrets.test.ts logs in over TLS).
  const smtp = await startSmtpServer({ user: 'slipway', password: 'smtp-pass-123' }, { authOptional: true });
  t.teardown(() => Promise.all([receiver.close(), smtp.close()]));
  const s = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: [receiver.url, smtp.url].map(destinationOf).join(','), SLIPWAY_NOTIFICATION_RETRY: '0.2' });
  t.teardown(() => s.close());
  const p = await createProject(s, 'Chat');
  const mk = async (body: unknown) => {
    const r = await s.call('POST', '/api/notification-channels', { body });
    t.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.channel;
  };
  const slack = await mk({ name: 'slack', type: 'slack', config: { webhookUrl: `${receiver.url}/slack` }, events: ['deployment.failed'] });
  await mk({ name: 'discord', type: 'discord', config: { webhookUrl: `${receiver.url}/discord` }, events: ['deployment.failed'] });
  const mail = await mk({
    name: 'mail',
    type: 'email',
    config: { host: '127.0.0.1', port: smtp.port, secure: false, from: 'slipway@example.com', to: ['ops@example.com'] },
    events: ['deployment.failed'],
  });
  t.same(slack.config, {}, 'the Slack URL is a secret');
  t.same(mail.storedSecrets, [], 'no password, none stored');

  const { service, deploymentId } = await failingDeployment(s, p.id);
  const [slackHit] = await receiver.waitFor(1, '/slack');
  const slackBody = JSON.parse(slackHit!.body);
  t.same(Object.keys(slackBody), ['text']);
  t.match(slackBody.text, new RegExp(`^Deployment failed: Chat / ${service.name}`));
  t.match(slackBody.text, `<${s.url}/deployments/${deploymentId}|deployment>`, "a person's link opens the dashboard's page");
  const [discordHit] = await receiver.waitFor(1, '/discord');
  const discordBody = JSON.parse(discordHit!.body);
  t.match(discordBody.content, new RegExp(`^Deployment failed: Chat / ${service.name}`));
  t.match(discordBody.content, `[deployment](<${s.url}/deployments/${deploymentId}>)`);
  t.same(discordBody.allowed_mentions, { parse: [] }, 'a reason cannot ping anyone');

  const [m] = await smtp.waitFor(1);
  t.same(smtp.auths, [], 'no login without TLS');
  t.same(m!.to, ['ops@example.com']);
  t.match(m!.raw, /^Subject: .*Slipway.*Deployment.failed.*Chat/m, 'the summary is the subject (encoded: it holds a dash)');
  t.match(m!.raw, /Content-Type: text\/plain/);
  t.match(m!.raw, /Content-Type: text\/html/);
  await deliveriesOf(s, mail.id, (d) => d[0]?.status === 'delivered');

  const renamed = await s.call('PATCH', `/api/notification-channels/${mail.id}`, { body: { config: { from: 'alerts@example.com' } } });
  t.equal(renamed.status, 200);
  t.same(renamed.body.channel.config.to, ['ops@example.com'], 'fields not given keep their values');
});

t.test('outbound policy, scopes, test sends, failing channels in the list and in health', async (t) => {
  const receiver = await startReceiver(() => 500);
  t.teardown(() => receiver.close());
  const s = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url) });
  t.teardown(() => s.close());

  const forbidden = await s.call('POST', '/api/notification-channels', { body: { name: 'x', type: 'webhook', config: { url: 'http://127.0.0.1:1/x' } } });
  t.equal(forbidden.status, 400);
  t.equal(forbidden.body.error.code, 'forbidden_destination');
  t.equal(forbidden.body.error.details[0].path, 'config.url');
  const bad = await s.call('POST', '/api/notification-channels', { body: { name: 'x', type: 'email', config: { host: 'smtp.example.com', from: 'nope', to: [] } } });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'validation_failed');
  t.equal((await s.call('POST', '/api/notification-channels', { body: { name: 'x', type: 'pager', config: {} } })).status, 400);

  const mine = await createProject(s, 'Mine');
  const theirs = await createProject(s, 'Theirs');
  const scoped = await createKey(s, 'write', [mine.id]);
  const everything = await s.call('POST', '/api/notification-channels', { key: scoped.secret, body: { name: 'all', type: 'webhook', config: { url: `${receiver.url}/a` }, projectIds: null } });
  t.equal(everything.status, 403, 'a scoped key cannot listen to every project');
  const other = await s.call('POST', '/api/notification-channels', { key: scoped.secret, body: { name: 'other', type: 'webhook', config: { url: `${receiver.url}/a` }, projectIds: [theirs.id] } });
  t.equal(other.status, 404, 'nor to a project it cannot see');
  const own = await s.call('POST', '/api/notification-channels', { key: scoped.secret, body: { name: 'own', type: 'webhook', config: { url: `${receiver.url}/own` } } });
  t.equal(own.status, 200);
  t.same(own.body.channel.projectIds, [mine.id], 'a scoped key’s channel is limited to its projects by default');
  const global = (await s.call('POST', '/api/notification-channels', { body: { name: 'global', type: 'webhook', config: { url: `${receiver.url}/g` } } })).body.channel;
  const listed = (await s.call('GET', '/api/notification-channels', { key: scoped.secret })).body.channels.map((c: any) => c.id);
  t.same(listed, [own.body.channel.id], 'the scoped key sees only its own');
  t.equal((await s.call('GET', `/api/notification-channels/${global.id}`, { key: scoped.secret })).status, 404);
  t.equal((await s.call('DELETE', `/api/notification-channels/${global.id}`, { key: scoped.secret })).status, 404);
  const reader = await createKey(s, 'read', null);
  t.equal((await s.call('POST', `/api/notification-channels/${global.id}/test`, { key: reader.secret, body: {} })).status, 403);

  for (let i = 0; i < 3; i++) {
    const tested = await s.call('POST', `/api/notification-channels/${global.id}/test`, { body: { event: 'backup.failed' } });
    t.match(tested.body.delivery, { status: 'abandoned', test: true, event: 'backup.failed', attempts: [{ status: 500 }] }, 'a test is sent once, not retried');
  }
  const failing = (await s.call('GET', `/api/notification-channels/${global.id}`)).body.channel;
  t.match(failing, { status: 'failing', failuresSinceSuccess: 3, lastError: 'the receiver answered HTTP 500 Internal Server Error' });
  const health = (await s.call('GET', '/api/health')).body;
  t.ok(health.warnings.some((w: string) => w.includes(global.id) && w.includes('failing')), 'health names the failing channel');

  t.equal((await s.call('DELETE', `/api/notification-channels/${global.id}`)).status, 200);
  t.equal((await s.call('GET', `/api/notification-channels/${global.id}`)).status, 404);
  t.notOk((await s.call('GET', '/api/health')).body.warnings.some((w: string) => w.includes(global.id)), 'a deleted channel is not failing any more');
});

t.test('certificates: a failed one is told at once, one expiring within 14 days once per certificate', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const s = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url), SLIPWAY_RECONCILE_INTERVAL: '0.3' });
  t.teardown(() => s.close());
  const p = await createProject(s, 'Certs');
  await s.call('POST', '/api/notification-channels', { body: { name: 'c', type: 'webhook', config: { url: `${receiver.url}/c` } } });
  const service = await createService(s, p.id, { name: 'web', repoUrl: 'docker-image', dockerImage: 'nginx:1.27', internalPort: 80 });
  const added = await s.call('POST', `/api/services/${service.id}/domains`, { body: { hostname: 'shop.example.com' } });
  t.equal(added.status, 200, JSON.stringify(added.body));
  const domain = (await s.call('GET', `/api/services/${service.id}/overview`)).body.domains[0];
  const cmd = s.app.commandContext('test');

  await recordCertificateChange(cmd, service.id, domain.id, domain.hostname, { status: 'failed', reason: 'no route to the host', notAfter: null, issuer: null });
  const [failed] = await receiver.waitFor(1, '/c');
  t.match(JSON.parse(failed!.body), { event: 'certificate.failed', service: { id: service.id }, reason: 'shop.example.com: no route to the host' });

  const later = new Date(Date.now() + 60 * 24 * 3600_000).toISOString();
  await recordCertificateChange(cmd, service.id, domain.id, domain.hostname, { status: 'active', reason: null, notAfter: later, issuer: 'Test CA' });
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(receiver.received.length, 1, 'a certificate 60 days from its end is not expiring');

  const soon = new Date(Date.now() + 5 * 24 * 3600_000).toISOString();
  await recordCertificateChange(cmd, service.id, domain.id, domain.hostname, { status: 'active', reason: null, notAfter: soon, issuer: 'Test CA' });
  const [, expiring] = await receiver.waitFor(2, '/c');
  t.match(JSON.parse(expiring!.body), { event: 'certificate.expiring', service: { id: service.id }, reason: `shop.example.com: the certificate expires at ${soon}` });
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(receiver.received.length, 2, 'told once, whatever the number of reconciles');
});

t.test('a webhook delivery refused for its signature is told as webhook.rejected, trusting nothing of its body', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const s = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url), SLIPWAY_NOTIFICATION_RETRY: '0.2' });
  t.teardown(() => s.close());
  const p = await createProject(s, 'Probed');
  const channel = (await s.call('POST', '/api/notification-channels', { body: { name: 'ops', type: 'webhook', config: { url: `${receiver.url}/hook` }, events: ['webhook.rejected'] } })).body.channel;
  const service = await createService(s, p.id, { name: 'web', repoFullName: 'acme/web', branch: 'main', internalPort: 8080, env: [] });
  t.equal((await s.call('PUT', `/api/services/${service.id}/auto-deploy`, { body: { enabled: true, provider: 'github' } })).status, 200);

  const forged = githubPush('not the secret of this service', 'refs/heads/main', '0'.repeat(40), [{ id: 'a'.repeat(40), message: 'forged', added: [], modified: ['x'], removed: [] }]);
  t.equal((await deliver(s.url, `/api/hooks/${service.id}/github`, forged)).status, 401);

  const [hit] = await receiver.waitFor(1, '/hook');
  const body = JSON.parse(hit!.body);
  t.match(body, { event: 'webhook.rejected', project: { id: p.id }, service: { id: service.id }, reason: /github delivery was refused \(signature\)/ });
  t.notOk(hit!.body.includes('forged') || hit!.body.includes('a'.repeat(40)), 'nothing of the refused body is repeated');
  t.equal((await deliveriesOf(s, channel.id, (d) => d[0]?.status === 'delivered'))[0].event, 'webhook.rejected');

  // A flood of forged deliveries is one message per service per 10 minutes; every one is still recorded.
  for (let i = 0; i < 5; i++) t.equal((await deliver(s.url, `/api/hooks/${service.id}/github`, forged)).status, 401);
  // Refusals are recorded after the answer: wait for all six.
  const refused = await eventually(
    async () => (await s.call('GET', `/api/services/${service.id}/auto-deploy/deliveries`)).body.deliveries as { verdict: string; at: string }[],
    (d) => d.length >= 6,
  );
  t.same(refused.map((d) => d.verdict), Array(6).fill('rejected:signature'), 'all six recorded');
  const windows = new Set(refused.map((d) => Math.floor(Date.parse(d.at) / REJECTED_WEBHOOK_WINDOW_MS))).size;
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(receiver.received.length, windows, 'told once per 10-minute window, not once per delivery');
});
