import { createHmac } from 'node:crypto';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { assertError } from '../helpers/http-errors.js';
import { waitFor } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';
import {
  bitbucketPush,
  deliver,
  genericPush,
  giteaPush,
  githubPing,
  githubPush,
  gitlabPush,
  gitlabSignedPush,
  type Delivery,
} from '../helpers/webhooks.js';

const s = await startTestServer({ SLIPWAY_KEY_FAILURES_PER_MINUTE: '20', SLIPWAY_LOG: 'json' });
t.teardown(() => s.close());
const project = await createProject(s, 'Hooks');

const sha = (n: number) => n.toString(16).padStart(40, 'a');
const BEFORE = sha(0);

/** A source service with auto-deploy saved as `settings`; answers it and its secret. */
async function hooked(name: string, settings: Record<string, unknown>) {
  const svc = await createService(s, project.id, { name, repoFullName: `acme/${name}`, branch: 'main', internalPort: 8080, env: [] });
  const r = await s.call('PUT', `/api/services/${svc.id}/auto-deploy`, { body: settings });
  if (r.status !== 200) throw new Error(`auto-deploy: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: svc.id as string, secret: r.body.autoDeploy.secret as string, path: (provider: string) => `/api/hooks/${svc.id}/${provider}` };
}

const deliveriesOf = async (serviceId: string) => (await s.call('GET', `/api/services/${serviceId}/auto-deploy/deliveries`)).body.deliveries as Record<string, any>[];
const deploymentsOf = async (serviceId: string) => (await s.call('GET', `/api/services/${serviceId}/deployments`)).body.deployments as Record<string, any>[];
const tampered = (d: Delivery): Delivery => ({ ...d, body: d.body.replace('"ref":"refs/heads/main"', '"ref":"refs/heads/main" ') });

t.test('settings: defaults, the secret shown once, GET without it, rotation', async (t) => {
  const svc = await createService(s, project.id, { name: 'settings', repoFullName: 'acme/settings', branch: 'trunk', internalPort: 8080, env: [] });
  const path = `/api/services/${svc.id}/auto-deploy`;
  t.same((await s.call('GET', path)).body, { autoDeploy: null }, 'nothing until saved');
  const first = await s.call('PUT', path, { body: { enabled: true, provider: 'github' } });
  t.equal(first.status, 200);
  t.match(first.body.autoDeploy, {
    serviceId: svc.id, enabled: true, provider: 'github', branch: 'trunk', followsServiceBranch: true, tagPattern: null, watchPaths: [], ignorePaths: [],
    skipKeywords: ['[skip ci]', '[ci skip]', '[skip deploy]'], webhookUrl: `${s.url}/api/hooks/${svc.id}/github`,
  });
  t.match(first.body.autoDeploy.secret, /^[0-9a-f]{64}$/, '32 random bytes, in hex, once');
  t.match(first.body.autoDeploy.webhookWarning, /^the webhook URL is on 127\.0\.0\.1, which no Git host can reach: set the apiDomain setting/, 'a loopback URL is called out');
  const again = await s.call('PUT', path, { body: { enabled: false, provider: 'gitlab', branch: 'release', skipKeywords: ['[nodeploy]'] } });
  t.notOk('secret' in again.body.autoDeploy, 'a later save does not show it again');
  t.match(again.body.autoDeploy, { enabled: false, provider: 'gitlab', branch: 'release', followsServiceBranch: false, skipKeywords: ['[nodeploy]'], webhookUrl: `${s.url}/api/hooks/${svc.id}/gitlab` });
  const got = await s.call('GET', path);
  t.notOk('secret' in got.body.autoDeploy, 'GET never shows it');
  t.equal(got.body.autoDeploy.branch, 'release');
  const rotated = await s.call('POST', `${path}/rotate-secret`);
  t.equal(rotated.status, 200);
  t.match(rotated.body.autoDeploy.secret, /^[0-9a-f]{64}$/);
  t.not(rotated.body.autoDeploy.secret, first.body.autoDeploy.secret, 'a new secret');
  const audit = JSON.stringify((await s.call('GET', `/api/audit?limit=200`)).body);
  t.notOk(audit.includes(first.body.autoDeploy.secret) || audit.includes(rotated.body.autoDeploy.secret), 'the secret is not in clear in the audit history');
  assertError(t, await s.call('PUT', path, { body: { enabled: true, provider: 'svn' } }), 400, 'validation_failed', 'an unknown provider');
  const domain = await s.call('PATCH', '/api/settings', { body: { apiDomain: 'api.hooks.test' } });
  t.equal(domain.status, 200, JSON.stringify(domain.body));
  t.match((await s.call('GET', path)).body.autoDeploy, { webhookUrl: `http://api.hooks.test/api/hooks/${svc.id}/gitlab`, webhookWarning: null }, 'the API’s domain once it has one, and no warning');
  await s.call('PATCH', '/api/settings', { body: { apiDomain: null } });
  const image = await createService(s, project.id, { name: 'img', repoUrl: 'docker-image', dockerImage: 'nginx:1', branch: 'main', internalPort: 80, env: [] });
  assertError(t, await s.call('PUT', `/api/services/${image.id}/auto-deploy`, { body: { enabled: true, provider: 'github' } }), 400, 'validation_failed', 'an image service');
});

t.test('github: ping, a push deploys exactly its after, a replay is a duplicate, a bad signature is 401 and nothing else', async (t) => {
  const h = await hooked('gh', { enabled: true, provider: 'github' });
  t.same((await deliver(s.url, h.path('github'), githubPing(h.secret))).body, { pong: true });
  const push = githubPush(h.secret, 'refs/heads/main', BEFORE, [{ id: sha(1), message: 'first' }, { id: sha(2), message: 'second', modified: ['app.py'] }], 'gh-delivery-1');
  const accepted = await deliver(s.url, h.path('github'), push);
  t.equal(accepted.status, 202);
  const deploymentId = accepted.body.deploymentId;
  const deployment = (await deploymentsOf(h.id)).find((d) => d.id === deploymentId);
  t.match(deployment, { trigger: 'webhook', commitSha: sha(2) }, 'queued by the webhook, for the pushed after');
  t.same((await deliver(s.url, h.path('github'), push)).body, { duplicate: true }, 'the same delivery again');
  t.same((await deliver(s.url, h.path('github'), { ...push, headers: { ...push.headers, 'x-github-delivery': 'a-new-id' } })).body, { duplicate: true }, 'the same signed body under a new delivery id');
  t.equal((await deploymentsOf(h.id)).length, 1, 'the replays deployed nothing');

  const forged = await deliver(s.url, h.path('github'), tampered(githubPush(h.secret, 'refs/heads/main', BEFORE, [{ id: sha(3), message: 'x' }])));
  assertError(t, forged, 401, 'unauthorized', 'a body changed after signing');
  t.notMatch(JSON.stringify(forged.body), /sha256|expected|github/i, 'the answer says nothing about the scheme');
  const wrongKey = await deliver(s.url, h.path('github'), githubPush('0'.repeat(64), 'refs/heads/main', BEFORE, [{ id: sha(4), message: 'x' }]));
  assertError(t, wrongKey, 401, 'unauthorized', 'signed with another secret');
  const unsigned = githubPush(h.secret, 'refs/heads/main', BEFORE, [{ id: sha(5), message: 'x' }]);
  delete unsigned.headers['x-hub-signature-256'];
  assertError(t, await deliver(s.url, h.path('github'), unsigned), 401, 'unauthorized', 'no signature');
  assertError(t, await deliver(s.url, h.path('gitlab'), gitlabPush(h.secret, 'refs/heads/main', BEFORE, [{ id: sha(6), message: 'x' }])), 401, 'unauthorized', 'another provider’s route');
  assertError(t, await deliver(s.url, `/api/hooks/${project.id}/github`, githubPing(h.secret)), 401, 'unauthorized', 'a service without auto-deploy');
  t.equal((await deploymentsOf(h.id)).length, 1, 'nothing unsigned deployed');

  // Refusals are recorded beside the answer, not before it (every refusal is answered alike).
  const deliveries = await waitFor('the refusals in the list', () => deliveriesOf(h.id), (d) => d.length === 8);
  t.same(deliveries.map((d) => d.verdict), ['rejected:provider', 'rejected:signature', 'rejected:signature', 'rejected:signature', 'duplicate', 'duplicate', 'deployed', 'pong'], 'every delivery recorded, newest first');
  t.match(deliveries[6], { provider: 'github', event: 'push', deliveryId: 'gh-delivery-1', commitSha: sha(2), deploymentId });
  t.match(deliveries[1], { deliveryId: null, commitSha: null, deploymentId: null }, 'nothing of a rejected body is trusted');
});

t.test('the deliveries list holds the last 100, newest first, from the read model', async (t) => {
  const h = await hooked('many', { enabled: true, provider: 'github' });
  for (let i = 0; i < 103; i++) await deliver(s.url, h.path('github'), githubPing(h.secret, `ping-${i}`));
  const deliveries = await deliveriesOf(h.id);
  t.equal(deliveries.length, 100);
  t.same([deliveries[0]!.deliveryId, deliveries[99]!.deliveryId], ['ping-102', 'ping-3'], 'the three oldest were dropped');
  const { rows } = await s.app.db.query<{ n: number }>('select count(*)::int as n from rm_webhook_deliveries where service_id = $1', [h.id]);
  t.equal(rows[0]!.n, 100, 'the table keeps no more than it lists');
});

t.test('github: branches, tags, paths and skip keywords', async (t) => {
  const h = await hooked('filters', { enabled: true, provider: 'github', tagPattern: 'v*', ignorePaths: ['docs/**', '*.md'], skipKeywords: ['[skip deploy]'] });
  const send = async (ref: string, commits: Parameters<typeof githubPush>[3]) => (await deliver(s.url, h.path('github'), githubPush(h.secret, ref, BEFORE, commits))).body;
  t.same(await send('refs/heads/feature', [{ id: sha(10), message: 'x', modified: ['app.py'] }]), { skipped: 'branch' });
  t.same(await send('refs/tags/build-7', [{ id: sha(11), message: 'x' }]), { skipped: 'tag' }, 'a tag not matching tagPattern');
  t.same(await send('refs/heads/main', [{ id: sha(12), message: 'docs', modified: ['docs/guide/intro.md', 'README.md'] }]), { skipped: 'paths' }, 'only ignored paths');
  t.same(await send('refs/heads/main', [{ id: sha(13), message: 'Fix typo [Skip Deploy]', modified: ['app.py'] }]), { skipped: 'keyword' }, 'a skip keyword, any case');
  t.match(await send('refs/heads/main', [{ id: sha(14), message: 'docs and code', modified: ['docs/a.md', 'src/app.py'] }]), { deploymentId: String }, 'a code change with the docs deploys');
  t.match(await send('refs/tags/v1.2.0', [{ id: sha(15), message: 'release' }]), { deploymentId: String }, 'a matching tag deploys');

  const watched = await hooked('watched', { enabled: true, provider: 'github', watchPaths: ['services/api/**'] });
  const sendW = async (files: string[]) => (await deliver(s.url, watched.path('github'), githubPush(watched.secret, 'refs/heads/main', BEFORE, [{ id: sha(16), message: 'x', modified: files }]))).body;
  t.same(await sendW(['services/web/index.ts']), { skipped: 'paths' }, 'nothing watched touched');
  t.match(await sendW(['services/api/main.ts']), { deploymentId: String }, 'a watched file touched');

  const off = await hooked('off', { enabled: false, provider: 'github' });
  t.same((await deliver(s.url, off.path('github'), githubPush(off.secret, 'refs/heads/main', BEFORE, [{ id: sha(17), message: 'x' }]))).body, { skipped: 'disabled' });
});

t.test('gitlab: the secret token, and Standard Webhooks signatures (fresh, stale, forged)', async (t) => {
  const h = await hooked('gl', { enabled: true, provider: 'gitlab' });
  const token = await deliver(s.url, h.path('gitlab'), gitlabPush(h.secret, 'refs/heads/main', BEFORE, [{ id: sha(20), message: 'x', added: ['a.py'] }]));
  t.equal(token.status, 202, 'X-Gitlab-Token equal to the secret');
  const wrongToken = gitlabPush(h.secret, 'refs/heads/main', BEFORE, [{ id: sha(21), message: 'x' }]);
  wrongToken.headers['x-gitlab-token'] = h.secret.slice(0, -1) + (h.secret.endsWith('0') ? '1' : '0');
  assertError(t, await deliver(s.url, h.path('gitlab'), wrongToken), 401, 'unauthorized', 'a token one character off');
  const signed = await deliver(s.url, h.path('gitlab'), gitlabSignedPush(h.secret, 'refs/heads/main', BEFORE, [{ id: sha(22), message: 'x' }]));
  t.equal(signed.status, 202, 'a Standard Webhooks signature');
  const stale = gitlabSignedPush(h.secret, 'refs/heads/main', BEFORE, [{ id: sha(23), message: 'x' }], 'old-one', Math.floor(Date.now() / 1000) - 600);
  assertError(t, await deliver(s.url, h.path('gitlab'), stale), 401, 'unauthorized', 'signed 10 minutes ago');
  const forged = gitlabSignedPush(h.secret, 'refs/heads/main', BEFORE, [{ id: sha(24), message: 'x' }]);
  forged.headers['webhook-id'] = 'another-id';
  assertError(t, await deliver(s.url, h.path('gitlab'), forged), 401, 'unauthorized', 'the signed id changed');
  const tag = await deliver(s.url, h.path('gitlab'), gitlabPush(h.secret, 'refs/tags/v2', BEFORE, [{ id: sha(25), message: 'x' }]));
  t.same(tag.body, { skipped: 'tag' }, 'a Tag Push Hook without tagPattern');
  t.same((await waitFor('the refusals in the list', () => deliveriesOf(h.id), (d) => d.length === 6)).map((d) => d.verdict), ['skipped:tag', 'rejected:signature', 'rejected:stale', 'deployed', 'rejected:signature', 'deployed']);
});

t.test('gitea, forgejo and bitbucket', async (t) => {
  const g = await hooked('gt', { enabled: true, provider: 'gitea' });
  t.equal((await deliver(s.url, g.path('gitea'), giteaPush(g.secret, 'refs/heads/main', BEFORE, [{ id: sha(30), message: 'x' }]))).status, 202);
  t.equal((await deliver(s.url, g.path('gitea'), giteaPush(g.secret, 'refs/heads/main', BEFORE, [{ id: sha(31), message: 'x' }], undefined, true))).status, 202, 'Forgejo’s headers');
  assertError(t, await deliver(s.url, g.path('gitea'), tampered(giteaPush(g.secret, 'refs/heads/main', BEFORE, [{ id: sha(32), message: 'x' }]))), 401, 'unauthorized', 'gitea, tampered');
  const replay = giteaPush(g.secret, 'refs/heads/main', BEFORE, [{ id: sha(33), message: 'x' }], 'gitea-7');
  t.equal((await deliver(s.url, g.path('gitea'), replay)).status, 202);
  t.same((await deliver(s.url, g.path('gitea'), replay)).body, { duplicate: true });

  const b = await hooked('bb', { enabled: true, provider: 'bitbucket', tagPattern: 'release-*' });
  const pushed = await deliver(s.url, b.path('bitbucket'), bitbucketPush(b.secret, 'main', 'branch', sha(40), 'x'));
  t.equal(pushed.status, 202);
  t.match((await deploymentsOf(b.id)).find((d) => d.id === pushed.body.deploymentId), { commitSha: sha(40) });
  t.same((await deliver(s.url, b.path('bitbucket'), bitbucketPush(b.secret, 'dev', 'branch', sha(41), 'x'))).body, { skipped: 'branch' });
  t.equal((await deliver(s.url, b.path('bitbucket'), bitbucketPush(b.secret, 'release-3', 'tag', sha(42), 'x'))).status, 202, 'a matching tag');
  t.same((await deliver(s.url, b.path('bitbucket'), bitbucketPush(b.secret, 'main', 'branch', sha(43), 'wip [skip ci]'))).body, { skipped: 'keyword' });
  assertError(t, await deliver(s.url, b.path('bitbucket'), bitbucketPush('nope', 'main', 'branch', sha(44), 'x')), 401, 'unauthorized', 'bitbucket, another secret');
});

t.test('generic: signed with a timestamp; stale and replayed deliveries are refused', async (t) => {
  const h = await hooked('gen', { enabled: true, provider: 'generic' });
  const ok = await deliver(s.url, h.path('generic'), genericPush(h.secret, 'refs/heads/main', sha(50), {}, 'gen-1'));
  t.equal(ok.status, 202);
  t.same((await deliver(s.url, h.path('generic'), genericPush(h.secret, 'refs/heads/main', sha(50), {}, 'gen-1'))).body, { duplicate: true }, 'the same id, signed anew');
  const stale = genericPush(h.secret, 'refs/heads/main', sha(51), {}, 'gen-2', Math.floor(Date.now() / 1000) - 301);
  assertError(t, await deliver(s.url, h.path('generic'), stale), 401, 'unauthorized', 'signed 301 s ago');
  const future = genericPush(h.secret, 'refs/heads/main', sha(51), {}, 'gen-3', Math.floor(Date.now() / 1000) + 330);
  assertError(t, await deliver(s.url, h.path('generic'), future), 401, 'unauthorized', 'dated 330 s ahead (a slow machine takes some seconds off)');
  const t0 = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ id: 'gen-4', ref: 'refs/heads/main', after: sha(52) });
  const otherT = { headers: { 'content-type': 'application/json', 'x-slipway-signature': `t=${t0 + 1},v1=${createHmac('sha256', h.secret).update(`${t0}.${body}`).digest('hex')}` }, body };
  assertError(t, await deliver(s.url, h.path('generic'), otherT), 401, 'unauthorized', 'the timestamp is signed too');
  t.same((await deliver(s.url, h.path('generic'), { ...genericPush(h.secret, 'refs/heads/main', sha(53)), body: '' })).status, 401, 'a signature of another body');
  const notJson = '{"id": "gen-5", "ref": ';
  const bad = { headers: { 'content-type': 'application/json', 'x-slipway-signature': `t=${t0},v1=${createHmac('sha256', h.secret).update(`${t0}.${notJson}`).digest('hex')}` }, body: notJson };
  assertError(t, await deliver(s.url, h.path('generic'), bad), 400, 'validation_failed', 'signed, but not JSON');
  // The refusal before it is recorded beside its answer, so it may land after this one.
  const newest = (await waitFor('the malformed delivery in the list', () => deliveriesOf(h.id), (d) => d.some((x) => x.verdict === 'rejected:malformed'))).slice(0, 2);
  t.ok(newest.some((d) => d.verdict === 'rejected:malformed'), 'recorded as rejected:malformed');
});

t.test('hook bodies up to 25 MB on the hook route only; bad signatures count toward the per-address limit', async (t) => {
  const h = await hooked('big', { enabled: true, provider: 'generic' });
  const padding = 'x'.repeat(3 * 1024 * 1024);
  const big = await deliver(s.url, h.path('generic'), genericPush(h.secret, 'refs/heads/main', sha(60), { padding }));
  t.equal(big.status, 202, 'a 3 MB delivery is taken');
  const api = await s.call('POST', '/api/projects', { raw: JSON.stringify({ name: 'big', description: padding }) });
  assertError(t, api, 413, 'payload_too_large', 'the same size on an API route');
  const huge = await deliver(s.url, h.path('generic'), genericPush(h.secret, 'refs/heads/main', sha(61), { padding: 'x'.repeat(26 * 1024 * 1024) }));
  assertError(t, huge, 413, 'payload_too_large', 'beyond 25 MB');

  const bad = () => deliver(s.url, h.path('generic'), genericPush('wrong', 'refs/heads/main', sha(62)), '127.0.0.9');
  for (let i = 0; i < 20; i++) assertError(t, await bad(), 401, 'unauthorized', `bad signature ${i + 1}`);
  assertError(t, await bad(), 429, 'rate_limited', 'the 21st in a minute');
  const signed = await deliver(s.url, h.path('generic'), genericPush(h.secret, 'refs/heads/main', sha(63)), '127.0.0.9');
  t.equal(signed.status, 202, 'a correctly signed delivery from the limited address is answered normally');
  t.match(s.logs(), /webhook signature refused/);
  t.equal((await deliver(s.url, h.path('generic'), genericPush(h.secret, 'refs/heads/main', sha(64)))).status, 202, 'another address is not limited');
});
