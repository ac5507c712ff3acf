import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { requireCaddy } from '../helpers/caddy.js';
import { healthApp as app } from '../helpers/apps.js';
import { deploy, deployEnv, logLines, outcome, probe, steadyLoad } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { startGitServer } from '../helpers/git-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

t.setTimeout(300_000);

/** A worker that accepts TCP connections on 9000 and answers nothing. */
const tcpWorker = {
  Dockerfile: `FROM ${TEST_IMAGES.python}\nWORKDIR /app\nCOPY worker.py .\nCMD ["python3", "-u", "worker.py"]\n`,
  'worker.py': `import socket, signal, sys
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 9000)); s.listen(16)
while True:
    c, _ = s.accept(); c.close()
`,
};

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > end) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const overview = async (s: TestServer, id: string) => (await s.call('GET', `/api/services/${id}/overview`)).body.service;
async function healthEvents(s: TestServer, id: string) {
  const events = (await s.call('GET', `/api/events?limit=1000&stream=service-${id}`)).body.events as { type: string; data: Record<string, unknown> }[];
  return events.filter((e) => e.type === 'ServiceBecameUnhealthy' || e.type === 'ServiceRecovered');
}

t.test('health checks gate the switch and running services are watched', { skip: (await requireDocker()) || (await requireCaddy()) }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/web', app('v1', 200));
  git.push('acme/worker', tcpWorker);
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_START_TIMEOUT: '8' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Health');
  t.teardown(() => removeProjectLeftovers(p.id));

  const web = await createService(s, p.id, {
    name: 'web',
    repoFullName: 'acme/web',
    branch: 'main',
    internalPort: 8080,
    healthCheck: { type: 'http', path: '/health', intervalSeconds: 1, timeoutSeconds: 2, retries: 2 },
  });
  const v1 = await deploy(s, web.id);
  t.equal(outcome(v1.done), 'succeeded', 'an http check on a custom path passes');
  t.match((await logLines(s, v1.queued.id)).join('\n'), /Health check: HTTP 200 from \/health/, 'the log says what the probe saw');
  t.equal((await probe(web.hostPort)).body, 'v1');
  t.match(await overview(s, web.id), { status: 'active', health: { status: 'healthy', detail: null }, restarts: 0 });

  await t.test('a release whose health path answers 500 never takes the route', async (t) => {
    git.push('acme/web', app('v2', 500));
    const load = steadyLoad(web.hostPort, 'localhost');
    const v2 = await deploy(s, web.id);
    const answers = await load.stop();
    t.equal(v2.done.status, 'failed');
    t.match(v2.done.reason, /^the http health check did not pass 2 times in a row within 8 s; last probe: HTTP 500 from \/health \(expected 200-399\)$/);
    t.match((await logLines(s, v2.queued.id)).join('\n'), /Health check 1\/10: HTTP 500 from \/health \(expected 200-399\)/);
    t.ok(answers.length > 20, `load ran (${answers.length} requests)`);
    const other = answers.filter((a) => a.status !== 200 || a.body !== 'v1');
    t.same(other, [], 'every request under load was answered by v1');
    t.match(await overview(s, web.id), { status: 'active', health: { status: 'healthy' } });
    t.equal((await probe(web.hostPort)).body, 'v1', 'the old release still serves');
  });

  await t.test('a killed container: crashed, then recovered, one event per change', async (t) => {
    const container = docker.getContainer(v1.done.containerName as string);
    const before = (await healthEvents(s, web.id)).length;
    await container.kill();
    const down = await until('the service to show crashed', async () => {
      const now = await overview(s, web.id);
      return now.status === 'crashed' && now;
    });
    t.match(down.health, { status: 'unhealthy', detail: /the container is down \(exit code 137\)/ });
    t.type(down.health.checkedAt, 'string');
    await container.start();
    const up = await until('the service to recover', async () => {
      const now = await overview(s, web.id);
      return now.status === 'active' && now.health.status === 'healthy' && now;
    });
    t.equal(up.health.detail, null);
    await new Promise((r) => setTimeout(r, 2_500));
    const events = (await healthEvents(s, web.id)).slice(before);
    t.match(events, [
      { type: 'ServiceBecameUnhealthy', data: { crashed: true, restarts: 0, probe: null } },
      { type: 'ServiceRecovered', data: { probe: { ok: true, detail: 'HTTP 200 from /health' } } },
    ]);
    t.equal(events.length, 2, 'exactly one event per change, none per probe');
  });

  await t.test('a crash Docker restarts is counted', async (t) => {
    const before = (await healthEvents(s, web.id)).length;
    // Straight to the container: its published port moved when it was started again above.
    const info = await docker.getContainer(v1.done.containerName as string).inspect();
    const address = Object.values(info.NetworkSettings.Networks)[0]!.IPAddress;
    await fetch(`http://${address}:8080/crash`).catch(() => undefined);
    const counted = await until('the restart to be counted', async () => {
      const now = await overview(s, web.id);
      return now.restarts === 1 && now.health.status === 'healthy' && now;
    });
    t.equal(counted.status, 'active');
    const events = (await healthEvents(s, web.id)).slice(before);
    t.match(events, [
      { type: 'ServiceBecameUnhealthy', data: { crashed: true, restarts: 1 } },
      { type: 'ServiceRecovered', data: { restarts: 1 } },
    ]);
  });

  await t.test('a tcp check on a worker', async (t) => {
    const worker = await createService(s, p.id, { name: 'jobs', repoFullName: 'acme/worker', branch: 'main', runtimeMode: 'worker', healthCheck: { type: 'tcp', port: 9000, retries: 1 } });
    const ok = await deploy(s, worker.id);
    t.equal(outcome(ok.done), 'succeeded');
    t.match((await logLines(s, ok.queued.id)).join('\n'), /Health check: port 9000 accepts connections/);
    const wrong = await createService(s, p.id, { name: 'jobs2', repoFullName: 'acme/worker', branch: 'main', runtimeMode: 'worker', healthCheck: { type: 'tcp', port: 9001, retries: 1 } });
    const failed = await deploy(s, wrong.id);
    t.equal(failed.done.status, 'failed');
    t.match(failed.done.reason, /^the tcp health check did not pass within 8 s; last probe: connection refused on port 9001$/);
  });
});

t.test('a command check on a database service', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_DB_START_TIMEOUT: '15' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Health DB');
  t.teardown(() => removeProjectLeftovers(p.id));
  const db = await createService(s, p.id, {
    name: 'db',
    repoFullName: 'database:postgres',
    repoUrl: 'database',
    branch: 'main',
    env: [],
    healthCheck: { type: 'command', command: ['pg_isready', '-h', '127.0.0.1'], intervalSeconds: 1, retries: 2 },
  });
  const ok = await deploy(s, db.id);
  t.equal(outcome(ok.done), 'succeeded');
  t.match((await logLines(s, ok.queued.id)).join('\n'), /Health check: pg_isready exited with code 0/);

  const patched = await s.call('PATCH', `/api/services/${db.id}`, { body: { healthCheck: { type: 'command', command: ['sh', '-c', 'echo not today >&2; exit 3'], retries: 1 } } });
  t.equal(patched.status, 200);
  const bad = await deploy(s, db.id);
  t.equal(bad.done.status, 'failed');
  t.match(bad.done.reason, /^the command health check did not pass within 15 s; last probe: exit code 3: not today$/);
  t.match(await overview(s, db.id), { status: 'active' });
  t.match((await logLines(s, bad.queued.id)).join('\n'), /Started slipway-db-\S+ again on the same data; it answers/, 'the previous container serves again');
});
