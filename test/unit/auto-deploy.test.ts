import { createHmac } from 'node:crypto';
import t from 'tap';
import { autoDeploy, replayOf, webhookDeploymentId, type VerifiedDelivery } from '../../commands/auto-deploy/aggregate.js';
import { DEFAULT_SKIP_KEYWORDS, type AutoDeploySettings, type WebhookDelivery } from '../../commands/auto-deploy/events.js';
import { decidePush, type PushedRef } from '../../commands/auto-deploy/push-verdict.js';
import { readHookMessage } from '../../src/http/hooks/payloads.js';
import { checkSignature } from '../../src/http/hooks/signatures.js';
import { deciderSpec } from '../helpers/decider-spec.js';
import { giteaPush, githubPush, gitlabPush } from '../helpers/webhooks.js';

const settings: AutoDeploySettings = { enabled: true, provider: 'github', branch: null, tagPattern: null, watchPaths: [], ignorePaths: [], skipKeywords: DEFAULT_SKIP_KEYWORDS };
const push = (over: Partial<PushedRef> = {}): PushedRef => ({ ref: 'refs/heads/main', after: 'a'.repeat(40), headMessage: 'change', files: ['src/app.ts'], ...over });
const owner = { serviceId: 'svc', projectId: 'prj' };
const spec = deciderSpec(autoDeploy);
const configured = spec.given().when('configure', owner, settings, 'enc:one').given();

t.test('decidePush: branch, tag, paths, keyword, disabled', async (t) => {
  t.same(decidePush(settings, 'main', push()), { deploy: true });
  t.same(decidePush(settings, 'main', push({ ref: 'refs/heads/dev' })), { skipped: 'branch' });
  t.same(decidePush({ ...settings, branch: 'dev' }, 'main', push({ ref: 'refs/heads/dev' })), { deploy: true }, 'a branch of its own');
  t.same(decidePush(settings, 'main', push({ ref: 'refs/heads/main', after: null })), { skipped: 'branch' }, 'a deleted branch');
  t.same(decidePush(settings, 'main', push({ ref: 'refs/tags/v1' })), { skipped: 'tag' }, 'no tagPattern: tags never deploy');
  t.same(decidePush({ ...settings, tagPattern: 'v[0-9]*' }, 'main', push({ ref: 'refs/tags/v1.0' })), { deploy: true });
  t.same(decidePush({ ...settings, tagPattern: 'v[0-9]*' }, 'main', push({ ref: 'refs/tags/vx' })), { skipped: 'tag' });
  const ignoring = { ...settings, ignorePaths: ['docs/**', '**/*.md'] };
  t.same(decidePush(ignoring, 'main', push({ files: ['docs/a/b.txt', 'pkg/README.md'] })), { skipped: 'paths' });
  t.same(decidePush(ignoring, 'main', push({ files: ['docs/a.txt', 'src/x.ts'] })), { deploy: true });
  t.same(decidePush(ignoring, 'main', push({ files: null })), { deploy: true }, 'files unknown (Bitbucket, truncated lists): no path filter holds it back');
  const watching = { ...settings, watchPaths: ['api/**'] };
  t.same(decidePush(watching, 'main', push({ files: ['web/x.ts'] })), { skipped: 'paths' });
  t.same(decidePush(watching, 'main', push({ files: ['api/.env.example'] })), { deploy: true }, 'dot files match');
  t.same(decidePush(settings, 'main', push({ headMessage: 'Fix [CI SKIP] now' })), { skipped: 'keyword' });
  t.same(decidePush({ ...settings, skipKeywords: [] }, 'main', push({ headMessage: '[skip ci]' })), { deploy: true });
  t.same(decidePush({ ...settings, enabled: false }, 'main', push()), { skipped: 'disabled' });
});

t.test('the aggregate: the secret made once, saves without change record nothing, replays are duplicates', async (t) => {
  t.same(spec.given().when('configure', owner, settings, 'enc:one').events.map((e) => e.type), ['AutoDeployConfigured', 'AutoDeploySecretRotated']);
  configured.when('configure', owner, settings, 'enc:two').then(t, [], 'the same settings again: nothing, the secret kept');
  t.same(configured.when('configure', owner, { ...settings, watchPaths: ['a/**'] }, 'enc:two').events.map((e) => e.type), ['AutoDeployConfigured']);
  spec.given().when('rotate', 'svc', 'enc:x').thenThrows(t, { code: 'not_found' });
  t.equal(configured.when('rotate', 'svc', 'enc:x').state.secret, 'enc:x');

  const delivery = (n: number, verdict = 'deployed'): WebhookDelivery => ({ provider: 'github', event: 'push', deliveryId: `d${n}`, bodyDigest: `digest${n}`, commitSha: null, verdict, deploymentId: `dep${n}`, at: new Date(0).toISOString() });
  const once = configured.when('recordDelivery', 'svc', delivery(1)).given();
  t.equal(once.state.lastPushDeploymentId, 'dep1');
  t.match(once.when('recordDelivery', 'svc', delivery(1)).events[0]!.data, { verdict: 'duplicate', deploymentId: null }, 'an accepted id again');
  t.match(once.when('recordDelivery', 'svc', { ...delivery(7), bodyDigest: 'digest1' }).events[0]!.data, { verdict: 'duplicate' }, 'the same body under a new id');
  t.match(once.when('recordDelivery', 'svc', { ...delivery(1), deliveryId: null, bodyDigest: 'digest8' }).events[0]!.data, { verdict: 'deployed' }, 'another body, no id');
  const rejected = configured.when('recordDelivery', 'svc', delivery(2, 'rejected:signature')).given();
  t.match(rejected.when('recordDelivery', 'svc', delivery(2)).events[0]!.data, { verdict: 'deployed' }, 'a rejected delivery’s id does not block the real one');
});

t.test('accepted deliveries are remembered 30 days, however many there are; older bodies still never queue twice', async (t) => {
  const state = configured.state;
  const day = 24 * 60 * 60 * 1000;
  const start = Date.parse('2026-01-01T00:00:00Z');
  const at = (days: number, plusMs = 0) => new Date(start + days * day + plusMs).toISOString();
  const delivery = (n: number, when: string, verdict = 'skipped:branch'): WebhookDelivery => ({ provider: 'github', event: 'push', deliveryId: `d${n}`, bodyDigest: `digest${n}`, commitSha: null, verdict, deploymentId: null, at: when });
  let busy = state;
  // 5,000 deliveries in the first hour: more than the 2,000 the memory used to keep (folded here one by one, not
  // replayed from the history for each).
  for (let i = 0; i < 5000; i++) busy = autoDeploy.evolve(busy, autoDeploy.decide.recordDelivery(busy, 'svc', delivery(i, at(0, i)))[0]!);
  t.match(autoDeploy.decide.recordDelivery(busy, 'svc', delivery(0, at(29)))[0]!.data, { verdict: 'duplicate' }, 'the first of 5,000, replayed 29 days later');
  t.match(autoDeploy.decide.recordDelivery(busy, 'svc', { ...delivery(9999, at(29)), bodyDigest: 'digest1' })[0]!.data, { verdict: 'duplicate' }, 'its body under a new id, 29 days later');
  t.equal(replayOf(busy, { ...delivery(0, at(31)), verdict: 'received' }), null, '31 days later the id is forgotten');
  const later = autoDeploy.evolve(busy, autoDeploy.decide.recordDelivery(busy, 'svc', delivery(6000, at(31)))[0]!);
  t.equal(later.seenDeliveries.length, 2, 'and a delivery recorded then drops the old ones from the state');

  const push: VerifiedDelivery = { provider: 'github', event: 'push', deliveryId: 'old', bodyDigest: 'digest-old', message: { kind: 'push', push: { ref: 'refs/heads/main', after: 'a'.repeat(40), headMessage: 'x', files: null } }, at: at(0) };
  const deployed = configured.when('delivery', 'svc', 'main', push, false).events;
  t.match(deployed[0]!.data, { verdict: 'deployed', deploymentId: webhookDeploymentId('svc', 'digest-old') }, 'the deployment id derives from the body');
  t.equal(webhookDeploymentId('svc', 'digest-old'), webhookDeploymentId('svc', 'digest-old'));
  t.not(webhookDeploymentId('svc', 'digest-old'), webhookDeploymentId('svc2', 'digest-old'), 'and the service');
  const forgotten = configured.when('delivery', 'svc', 'main', { ...push, at: at(400) }, true).events;
  t.match(forgotten[0]!.data, { verdict: 'duplicate', deploymentId: null }, 'a body older than the memory whose deployment exists: duplicate');
  t.match(configured.when('delivery', 'svc', 'main', { ...push, message: { kind: 'ping' } }, false).events[0]!.data, { verdict: 'pong' });
});

t.test('signatures: each scheme, over the exact bytes', async (t) => {
  const secret = 'c'.repeat(64);
  const body = Buffer.from('{"ref":"refs/heads/main"}');
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  const headers = (h: Record<string, string>) => (name: string) => h[name] ?? '';
  t.same(checkSignature('github', headers({ 'x-hub-signature-256': `sha256=${hex}` }), secret, body), { ok: true });
  t.same(checkSignature('github', headers({ 'x-hub-signature-256': `sha256=${hex.toUpperCase()}` }), secret, body), { ok: true }, 'hex in either case');
  t.same(checkSignature('github', headers({ 'x-hub-signature-256': hex }), secret, body), { ok: false, reason: 'signature' }, 'without its prefix');
  t.same(checkSignature('github', headers({ 'x-hub-signature-256': `sha256=${hex}` }), secret, Buffer.from(`${body} `)), { ok: false, reason: 'signature' }, 'one byte more');
  t.same(checkSignature('bitbucket', headers({ 'x-hub-signature': `sha256=${hex}` }), secret, body), { ok: true });
  t.same(checkSignature('gitea', headers({ 'x-forgejo-signature': hex }), secret, body), { ok: true });
  t.same(checkSignature('gitlab', headers({ 'x-gitlab-token': secret }), secret, body), { ok: true });
  t.same(checkSignature('gitlab', headers({ 'x-gitlab-token': `${secret}x` }), secret, body), { ok: false, reason: 'signature' });
  t.same(checkSignature('gitlab', headers({}), secret, body), { ok: false, reason: 'signature' });
  const now = 1_800_000_000_000;
  const ts = String(now / 1000 - 60);
  const sw = createHmac('sha256', secret).update(`msg_1.${ts}.${body}`).digest('base64');
  const standard = { 'webhook-id': 'msg_1', 'webhook-timestamp': ts };
  t.same(checkSignature('gitlab', headers({ ...standard, 'webhook-signature': `v1,bm9wZQ== v1,${sw}` }), secret, body, now), { ok: true }, 'one of several signatures');
  t.same(checkSignature('gitlab', headers({ ...standard, 'webhook-signature': `v1,${sw}` }), secret, body, now + 10 * 60_000), { ok: false, reason: 'stale' });
  const g = createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
  t.same(checkSignature('generic', headers({ 'x-slipway-signature': `t=${ts},v1=${g}` }), secret, body, now), { ok: true });
  t.same(checkSignature('generic', headers({ 'x-slipway-signature': `t=${ts},v1=${g}` }), secret, body, now + 5 * 60_000), { ok: false, reason: 'stale' });
  t.same(checkSignature('generic', headers({ 'x-slipway-signature': `v1=${g}` }), secret, body, now), { ok: false, reason: 'signature' }, 'no timestamp');
});

t.test('payloads: the files a push touched are known only when every commit is listed', async (t) => {
  const header = (h: Record<string, string>) => (name: string) => h[name.toLowerCase()] ?? '';
  const commits = [{ id: 'b'.repeat(40), message: 'docs', modified: ['docs/a.md'] }];
  const gitlab = gitlabPush('s', 'refs/heads/main', 'a'.repeat(40), commits);
  const all = readHookMessage('gitlab', header(gitlab.headers), JSON.parse(gitlab.body));
  t.match(all, { kind: 'push', push: { after: 'b'.repeat(40), files: ['docs/a.md'], headMessage: 'docs' } });
  const cut = readHookMessage('gitlab', header(gitlab.headers), { ...JSON.parse(gitlab.body), total_commits_count: 25 });
  t.match(cut, { kind: 'push', push: { files: null } }, 'GitLab listed 1 of 25 commits');
  const gitea = giteaPush('s', 'refs/heads/main', 'a'.repeat(40), commits);
  t.match(readHookMessage('gitea', header(gitea.headers), { ...JSON.parse(gitea.body), total_commits: 11 }), { push: { files: null } }, 'Gitea listed 1 of 11');
  const github = githubPush('s', 'refs/heads/main', 'a'.repeat(40), commits);
  t.match(readHookMessage('github', header(github.headers), JSON.parse(github.body)), { kind: 'push', deliveryId: github.headers['x-github-delivery'], push: { files: ['docs/a.md'] } });
  t.match(readHookMessage('github', header({ ...github.headers, 'x-github-delivery': 'bad id\u0007' }), JSON.parse(github.body)), { deliveryId: null }, 'an id that is not printable is not kept');
  t.throws(() => readHookMessage('github', header(github.headers), { ref: 'refs/heads/main' }), 'a push without after');
});
