import { request } from 'node:http';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { assertError } from '../helpers/http-errors.js';
import { waitFor } from '../helpers/net.js';
import { holdChunked, holdRequest, statusOfAnswer } from '../helpers/held-request.js';
import { startTestServer } from '../helpers/test-server.js';
import { deliver, genericPush, githubPush, type Delivery } from '../helpers/webhooks.js';

// The periodic reconcile is called by the test itself, so a failure stays visible until it is.
const s = await startTestServer({ SLIPWAY_KEY_FAILURES_PER_MINUTE: '20', SLIPWAY_LOG: 'json', SLIPWAY_RECONCILE_INTERVAL: '3600' });
t.teardown(() => s.close());
const project = await createProject(s, 'Hook limits');
const port = Number(new URL(s.url).port);
const sha = (n: number) => n.toString(16).padStart(40, 'b');

async function hooked(name: string, provider = 'generic') {
  const svc = await createService(s, project.id, { name, repoFullName: `acme/${name}`, branch: 'main', internalPort: 8080, env: [] });
  const r = await s.call('PUT', `/api/services/${svc.id}/auto-deploy`, { body: { enabled: true, provider } });
  if (r.status !== 200) throw new Error(`auto-deploy: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: svc.id as string, secret: r.body.autoDeploy.secret as string, path: `/api/hooks/${svc.id}/${provider}` };
}
const deploymentsOf = async (serviceId: string) => (await s.call('GET', `/api/services/${serviceId}/deployments`)).body.deployments as Record<string, any>[];

/** An API request from another loopback address. */
function apiFrom(localAddress: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/projects', headers: { authorization: `Bearer ${key}` }, localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const hold = (path: string, headers: string, first: string) => holdRequest(port, path, headers, first);
const chunked = (path: string) => holdChunked(port, path);
const statusOf = statusOfAnswer;

t.test('a service id without auto-deploy is refused like a bad signature, unread, in a limiter of its own', async (t) => {
  const h = await hooked('known');
  const noHook = (await createService(s, project.id, { name: 'plain', repoFullName: 'acme/plain', branch: 'main', internalPort: 8080, env: [] })).id as string;
  const forged = genericPush('wrong', 'refs/heads/main', sha(1));
  const badSignature = await deliver(s.url, h.path, forged, '127.0.0.5');
  const unknown = await deliver(s.url, `/api/hooks/00000000-0000-4000-8000-00000000abcd/generic`, forged, '127.0.0.5');
  const notConfigured = await deliver(s.url, `/api/hooks/${noHook}/generic`, forged, '127.0.0.5');
  assertError(t, badSignature, 401, 'unauthorized', 'a bad signature');
  t.same(unknown, badSignature, 'a service id that does not exist: the same answer');
  t.same(notConfigured, badSignature, 'a service without auto-deploy: the same answer');

  // The head announces a megabyte that never comes: the answer does not wait for it.
  const unread = hold(`/api/hooks/${noHook}/generic`, 'Content-Length: 1000000\r\nX-Slipway-Signature: t=1,v1=00\r\n', '{');
  t.equal(statusOf(await unread.answer), 401, 'refused without reading the body');

  for (let i = 0; i < 17; i++) await deliver(s.url, `/api/hooks/${noHook}/generic`, forged, '127.0.0.5');
  assertError(t, await deliver(s.url, `/api/hooks/${noHook}/generic`, forged, '127.0.0.5'), 429, 'rate_limited', 'the 21st refusal from the address');
  t.equal(await apiFrom('127.0.0.5', 'slw_unknown-key'), 401, 'an unknown API key from that address is not limited: refused deliveries count apart');
  t.equal(await apiFrom('127.0.0.5', s.key), 200);

  // Refusals to one service from 20 addresses limit refusals to it from a 21st.
  const target = await hooked('target');
  for (let i = 0; i < 20; i++) assertError(t, await deliver(s.url, target.path, forged, `127.0.1.${i + 1}`), 401, 'unauthorized', `refusal ${i + 1}`);
  assertError(t, await deliver(s.url, target.path, forged, '127.0.1.100'), 429, 'rate_limited', 'the 21st refusal to the service, from a new address');
  const good = await deliver(s.url, target.path, genericPush(target.secret, 'refs/heads/main', sha(2)), '127.0.1.100');
  t.equal(good.status, 202, 'a correctly signed delivery to it is answered normally');
  const listed = await waitFor('recorded refusals', async () => (await s.call('GET', `/api/services/${target.id}/auto-deploy/deliveries`)).body.deliveries as unknown[], (d) => d.length >= 21);
  t.equal(listed.length, 21, 'refusals past the limit are not recorded: 20 refusals and the deployed one');
});

t.test('held connections to one service never make another service wait or fail; chunked bodies are charged as they arrive', async (t) => {
  const a = await hooked('held');
  const b = await hooked('other');
  const held = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? chunked(a.path) : hold(a.path, `Content-Length: ${20 * 1024 * 1024}\r\n`, '{')));
  t.teardown(() => held.forEach((h) => h.socket.destroy()));
  // Every connection beyond the service's 2 bodies at once is answered 503 and closed.
  const answered: string[] = [];
  held.forEach((h) => void h.answer.then((a) => answered.push(a)));
  await waitFor('18 answers', async () => answered.length, (n) => n >= 18);
  t.same(answered.map(statusOf), Array<number>(18).fill(503), 'the other 18 get 503');
  t.match(answered[0], /Retry-After: 5/i);

  const other = await deliver(s.url, b.path, genericPush(b.secret, 'refs/heads/main', sha(3)));
  t.equal(other.status, 202, 'a signed delivery to another service is answered while they hold');
  const big = await deliver(s.url, b.path, genericPush(b.secret, 'refs/heads/main', sha(4), { padding: 'x'.repeat(20 * 1024 * 1024) }));
  t.equal(big.status, 202, 'a 20 MB one too: held bodies are charged for the bytes received, not what they announce');
  t.equal(answered.length, 18, 'meanwhile the two bodies of the held service are still being received');
});

/** Sends a delivery without checking the answer against the contract (a failed append answers 500). */
function post(path: string, d: Delivery): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: d.headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(d.body);
  });
}

/** Makes the store refuse, once, the next append that `matches`; answers whether it did. */
function failOnce(matches: (streamId: string, types: string[]) => boolean) {
  const store = s.app.store;
  const append = store.append.bind(store);
  const state = { failed: false };
  store.append = (streamId, events, expected) => {
    if (!state.failed && matches(streamId, events.map((e) => e.type))) {
      state.failed = true;
      return Promise.reject(new Error('injected: the append failed'));
    }
    return append(streamId, events, expected);
  };
  return { state, restore: () => (store.append = append) };
}

t.test('every delivery deploys exactly once: copies at once, and a redelivery after a failure at either append', async (t) => {
  const h = await hooked('once', 'github');
  const push = githubPush(h.secret, 'refs/heads/main', sha(0), [{ id: sha(10), message: 'x' }], 'copy-1');
  const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(s.url, h.path, push)));
  t.equal(answers.filter((a) => a.status === 202).length, 1, 'one copy is accepted');
  t.equal(answers.filter((a) => a.body.duplicate === true).length, 4, 'the other four are duplicates');
  t.equal((await deploymentsOf(h.id)).length, 1, 'one deployment, none queued and then canceled');

  const afterRecord = failOnce((streamId, types) => streamId.startsWith('deployment-') && types.includes('DeploymentQueued'));
  const second = githubPush(h.secret, 'refs/heads/main', sha(0), [{ id: sha(11), message: 'y' }], 'copy-2');
  const failed = await post(h.path, second);
  afterRecord.restore();
  t.ok(afterRecord.state.failed, 'the deployment’s append failed after the delivery was recorded');
  t.ok(failed.status >= 500, `the sender is told it failed (${failed.status})`);
  t.equal((await deploymentsOf(h.id)).length, 1, 'nothing queued yet');
  const redelivered = await deliver(s.url, h.path, second);
  t.same(redelivered.body, { duplicate: true }, 'the redelivery is the recorded delivery’s duplicate…');
  const queued = await deploymentsOf(h.id);
  t.equal(queued.length, 2, '…and queues its deployment');
  const deployed = ((await s.call('GET', `/api/services/${h.id}/auto-deploy/deliveries`)).body.deliveries as Record<string, any>[]).find((d) => d.deliveryId === 'copy-2' && d.verdict === 'deployed');
  t.match(queued.find((d) => d.commitSha === sha(11)), { id: deployed?.deploymentId, trigger: 'webhook' }, 'the one the delivery was recorded with');
  t.same((await deliver(s.url, h.path, second)).body, { duplicate: true }, 'once more: nothing');
  t.equal((await deploymentsOf(h.id)).length, 2);

  const atRecord = failOnce((streamId, types) => streamId.startsWith('autodeploy-') && types.includes('WebhookDeliveryRecorded'));
  const third = githubPush(h.secret, 'refs/heads/main', sha(0), [{ id: sha(12), message: 'z' }], 'copy-3');
  const failedToo = await post(h.path, third);
  atRecord.restore();
  t.ok(atRecord.state.failed && failedToo.status >= 500, 'recording the delivery failed');
  const again = await deliver(s.url, h.path, third);
  t.equal(again.status, 202, 'the redelivery is accepted');
  const all = await deploymentsOf(h.id);
  t.equal(all.filter((d) => d.commitSha === sha(12)).length, 1, 'and deploys the commit once');

  const unrepeated = failOnce((streamId, types) => streamId.startsWith('deployment-') && types.includes('DeploymentQueued'));
  const fourth = githubPush(h.secret, 'refs/heads/main', sha(0), [{ id: sha(13), message: 'w' }], 'copy-4');
  t.ok((await post(h.path, fourth)).status >= 500 && unrepeated.state.failed, 'queueing failed after the record, and no redelivery comes');
  unrepeated.restore();
  const recorded = async () =>
    ((await s.call('GET', `/api/services/${h.id}/auto-deploy/deliveries`)).body.deliveries as Record<string, any>[]).find((d) => d.deliveryId === 'copy-4' && d.verdict === 'deployed');
  for (const deadline = Date.now() + 30_000; !(await recorded()) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
  t.equal((await deploymentsOf(h.id)).filter((d) => d.commitSha === sha(13)).length, 0, 'nothing queued yet');
  await s.app.deployer!.reconcile();
  await s.app.deployer!.reconcile();
  const repairedOnes = async () => (await deploymentsOf(h.id)).filter((d) => d.commitSha === sha(13));
  for (const deadline = Date.now() + 10_000; (await repairedOnes()).length === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
  const repaired = await repairedOnes();
  t.equal(repaired.length, 1, 'the periodic reconcile queues it, once');
  t.equal(repaired[0]?.id, (await recorded())?.deploymentId, 'under the id the delivery was recorded with');
});
