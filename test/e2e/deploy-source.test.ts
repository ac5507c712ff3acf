import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, logLines, probe } from '../helpers/deploy.js';
import { containersOf, docker, requireDocker, imagesOf, removeProjectLeftovers } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { eventually, waitFor } from '../helpers/net.js';
import { readSse } from '../helpers/sse.js';
import { startTestServer } from '../helpers/test-server.js';

const TOKEN = 'ghp_tokenThatMustNeverLeak42';
const SECRET = 'super-secret-value-9931';

const app = (version: string, extra = '') => ({
  Dockerfile: 'FROM slipway/runtime-python:bookworm\nWORKDIR /app\nCOPY . .\nRUN echo "building with the secret ${NOPE}"\nCMD ["python3", "-u", "server.py"]\n',
  'server.py': `import http.server, os, sys, time
${extra}
print("starting ${version}; api key is " + os.environ["API_KEY"])
print("database at " + os.environ["DATABASE_URL"])
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("${version} " + os.environ["GREETING"]).encode()
        self.send_response(200); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, fmt, *args):
        print("request " + self.path, flush=True)
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`,
});

t.test('a source service deploys, redeploys, streams its logs and goes away cleanly', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer({ 'acme/shop': TOKEN });
  t.teardown(() => git.close());
  const firstSha = git.push('acme/shop', app('v1'));
  const { env, proxyPort } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Shop');
  t.teardown(() => removeProjectLeftovers(project.id));

  await createService(s, project.id, {
    name: 'db',
    repoFullName: 'database:postgres',
    repoUrl: 'database',
    branch: 'main',
    internalPort: 5432,
    databasePublicEnabled: false,
    env: [{ key: 'POSTGRES_PASSWORD', value: 'pw-from-the-database-77' }],
  });
  const svc = await createService(s, project.id, {
    name: 'shop',
    repoFullName: 'acme/shop',
    branch: 'main',
    internalPort: 8080,
    gitToken: TOKEN,
    env: [
      { key: 'GREETING', value: 'hello' },
      { key: 'API_KEY', value: SECRET },
      { key: 'DATABASE_URL', value: '${db.DATABASE_URL}' },
    ],
  });
  await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'shop.deploy.test' } });
  t.equal((await probe(proxyPort, 'shop.deploy.test')).status, 503, 'before any deployment the domain answers 503');

  const first = await s.call('POST', `/api/services/${svc.id}/deployments`);
  t.equal(first.status, 200);
  t.match(first.body.deployment, { serviceId: svc.id, status: 'queued', trigger: 'manual', commitSha: null, imageTag: null, containerName: null, startedAt: null, finishedAt: null });
  const stream = await readSse(`${s.url}/api/deployments/${first.body.deployment.id}/stream`, s.key);
  t.match(stream.contentType, /^text\/event-stream/);
  await stream.ended;

  const done = (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments[0];
  t.match(done, { status: 'succeeded', commitSha: firstSha, buildMethod: 'dockerfile' }, 'the deployment succeeded on the pushed commit');
  t.match(done.imageTag, new RegExp(`^slipway/shop-[0-9a-f]{8}:${done.id}$`), 'the image tag carries the deployment id');
  t.equal(done.containerName, `slipway-shop-${done.id}`);
  const inspected = await docker.getContainer(done.containerName).inspect();
  t.equal(inspected.HostConfig.RestartPolicy?.Name, 'unless-stopped', 'a released container is restarted by the engine (and survives its restart)');
  t.ok(Date.parse(done.startedAt) <= Date.parse(done.finishedAt), 'startedAt before finishedAt');

  await t.test('the deployment stream: snapshot, then each line as it comes, and an end', async (t) => {
    t.equal(stream.events[0]?.event, 'snapshot');
    const logEvents = stream.events.filter((e) => e.event === 'log');
    t.ok(logEvents.length > 10, `${logEvents.length} log events`);
    const ids = logEvents.map((e) => e.data.id);
    t.same(ids, [...ids].sort((a, b) => a - b), 'ids in order');
    t.ok(logEvents.some((e) => /Successfully tagged/.test(e.data.line)), 'build output streamed');
    t.ok(logEvents.at(-1)!.data.line.startsWith('Deployment succeeded'), 'the last line says how it ended');
  });

  await t.test('logs: integer ids in order, secrets redacted, the token nowhere', async (t) => {
    const logs = (await s.call('GET', `/api/deployments/${done.id}/logs`)).body.logs as Record<string, any>[];
    t.same(logs.map((l) => l.id), logs.map((_, i) => i + 1), 'ids 1..n');
    t.match(logs[0], { deploymentId: done.id, stream: 'system', line: /started/ });
    const text = logs.map((l) => l.line).join('\n');
    t.match(text, /starting v1; api key is \[redacted\]/, "the app's own output is in the log, redacted");
    t.match(text, /database at \[redacted\]/, 'a resolved reference is redacted too');
    t.notMatch(text, SECRET);
    t.notMatch(text, TOKEN);
    t.notMatch(text, 'pw-from-the-database-77');
    t.ok(git.requests.length > 0 && git.requests.every((r) => !r.url.includes(TOKEN)), 'the token never went into a URL');
    t.ok(git.requests.some((r) => r.authorization?.startsWith('Basic ')), 'it went as an Authorization header');
    const events = (await s.call('GET', '/api/events?limit=1000')).body.events;
    t.notMatch(JSON.stringify(events), TOKEN, 'nor into the event history');
    t.notMatch(JSON.stringify(events), SECRET);
  });

  const service = (await s.call('GET', `/api/services/${svc.id}/overview`)).body;
  t.match(service.service, { status: 'active', reachable: true, detectedBuildMethod: 'dockerfile' });
  t.ok(service.service.lastDeployedAt, 'lastDeployedAt is set');
  t.equal(service.deployments[0].id, done.id, 'the overview lists the deployment');
  t.same(await probe(svc.hostPort), { status: 200, body: 'v1 hello' }, 'answers on its hostPort');
  t.same(await probe(proxyPort, 'shop.deploy.test'), { status: 200, body: 'v1 hello' }, 'answers on its domain');

  await t.test('an app the engine restarts after a crash keeps its route', async (t) => {
    // A crash, not a stop through the engine: the app's process dies under it.
    const { State } = await docker.getContainer(done.containerName).inspect();
    process.kill(State.Pid, 'SIGKILL');
    const back = await eventually(() => probe(svc.hostPort), (r) => r.status === 200, 20_000);
    t.same(back, { status: 200, body: 'v1 hello' }, 'restarted by the engine on the same loopback port, still routed');
  });

  await t.test('runtime logs stream: snapshot, live lines, status', async (t) => {
    const runtime = await readSse(`${s.url}/api/services/${svc.id}/runtime-logs/stream`, s.key);
    // The stream follows the container once it has said so; a request then makes the app print a line.
    await waitFor('the runtime stream to follow the container', async () => runtime.events.map((e) => e.event), (events) => events.includes('status'), 10_000);
    await probe(svc.hostPort);
    await waitFor('a live line on the runtime stream', async () => runtime.events.map((e) => e.event), (events) => events.includes('log'), 10_000);
    runtime.close();
    const [snapshot, status] = runtime.events;
    t.equal(snapshot?.event, 'snapshot');
    t.ok(snapshot!.data.some((l: { line: string }) => l.line === 'starting v1; api key is [redacted]'), 'recent lines, redacted');
    t.same(status, { event: 'status', data: { ok: true, closed: false }, at: status!.at });
    const live = runtime.events.find((e) => e.event === 'log');
    t.match(live?.data, { line: 'request /', stream: 'stdout' }, 'a new line arrives live');
    t.ok(live!.data.id > snapshot!.data.at(-1).id, 'ids continue after the snapshot');
  });

  // Requests across redeploys: test/e2e/deploy-zero-downtime.test.ts.
  await t.test('a redeploy serves the new commit and retires the previous container (its image stays with its release)', async (t) => {
    const secondSha = git.push('acme/shop', app('v2'));
    const { done: second } = await deploy(s, svc.id);
    t.match(second, { status: 'succeeded', commitSha: secondSha });
    t.same(await probe(svc.hostPort), { status: 200, body: 'v2 hello' });
    t.same(await probe(proxyPort, 'shop.deploy.test'), { status: 200, body: 'v2 hello' });
    const left = await eventually(() => containersOf({ [LABEL.service]: svc.id }), (list) => list.length === 1, 20_000);
    t.same(left.map((c) => c.Labels[LABEL.deployment]), [second.id], 'the old container was retired');
    const images = await imagesOf({ [LABEL.service]: svc.id });
    t.same(images.map((i) => i.Labels[LABEL.deployment]).sort(), [first.body.deployment.id as string, second.id as string].sort(), 'both images stay: their releases are kept');
  });

  await t.test('a deployment that crashes on start leaves the previous one serving', async (t) => {
    git.push('acme/shop', app('v3', 'sys.exit(3)'));
    const { done: broken } = await deploy(s, svc.id);
    t.match(broken, { status: 'failed' });
    t.match((await logLines(s, broken.id)).join('\n'), /exited with code 3/, 'the log says why');
    t.equal((await probe(svc.hostPort)).body, 'v2 hello', 'v2 still serves on the host port');
    t.equal((await probe(proxyPort, 'shop.deploy.test')).body, 'v2 hello', 'and on the domain');
    t.same((await containersOf({ [LABEL.deployment]: broken.id })).length, 0, 'the failed container was removed');
    t.same((await imagesOf({ [LABEL.deployment]: broken.id })).length, 0, 'and its image');
  });

  await t.test('an unresolved reference fails the deployment with a clear line', async (t) => {
    await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'BROKEN', value: '${nosuch.THING}' } });
    const { done: refused } = await deploy(s, svc.id);
    t.match(refused, { status: 'failed' });
    t.match((await logLines(s, refused.id)).join('\n'), /variable BROKEN refers to \$\{nosuch\.THING\}, which no service of this project defines/);
    t.equal((await probe(svc.hostPort)).body, 'v2 hello');
    const env = (await s.call('GET', `/api/services/${svc.id}/overview`)).body.env;
    await s.call('DELETE', `/api/services/${svc.id}/env/${env.find((e: { key: string }) => e.key === 'BROKEN').id}`);
  });

  await t.test('deleting the service stops its container and removes its route', async (t) => {
    const runtime = await readSse(`${s.url}/api/services/${svc.id}/runtime-logs/stream`, s.key);
    const deleted = await s.call('DELETE', `/api/services/${svc.id}`);
    t.match(deleted.body, { ok: true, proxy: { ok: true } });
    await runtime.ended;
    t.same(runtime.events.at(-1)?.data, { ok: false, closed: true }, 'the runtime stream ends with closed: true');
    const left = await eventually(() => containersOf({ [LABEL.service]: svc.id }), (list) => list.length === 0, 15_000);
    t.same(left, [], 'no container left');
    // Images go after the containers that use them.
    t.same(await eventually(() => imagesOf({ [LABEL.service]: svc.id }), (list) => list.length === 0, 15_000), [], 'no image left');
    t.equal((await probe(proxyPort, 'shop.deploy.test')).status, 404, 'the domain no longer routes');
    t.equal((await probe(svc.hostPort)).status, 0, 'nothing listens on the host port');
    t.equal((await s.call('GET', `/api/deployments/${done.id}/logs`)).status, 404, 'its deployments are gone with it');
  });
});
