import { createServer, type Socket } from 'node:net';
import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { deployEnv, logLines, waitForDeployment } from '../helpers/deploy.js';
import { containersOf, docker, imagesOf, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { versionedApp } from '../helpers/apps.js';
import { gitProcessesOf } from '../helpers/git-processes.js';
import { startGitServer } from '../helpers/git-server.js';
import { eventually, freePort } from '../helpers/net.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const TOKEN = 'ghp_theRightTokenForPrivate1';
/** A registry that accepts connections and never answers: a pull from it hangs. */
async function silentRegistry() {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function failedDeployment(s: TestServer, serviceId: string) {
  const queued = (await s.call('POST', `/api/services/${serviceId}/deployments`)).body.deployment;
  const done = await waitForDeployment(s, serviceId, queued.id, 120_000);
  return { done, log: (await logLines(s, queued.id)).join('\n') };
}

t.test('deployments that cannot succeed fail with the reason: Git, images and timeouts', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer({ 'acme/private': TOKEN });
  t.teardown(() => git.close());
  git.push('acme/private', versionedApp('private'));
  git.push('acme/hung', versionedApp('hung'));
  git.push('acme/slow-build', { Dockerfile: `FROM ${TEST_IMAGES.python}\nRUN echo slow-build-started && sleep 300\n` });
  const releaseHung = git.hold('acme/hung');
  t.teardown(releaseHung);
  const registry = await silentRegistry();
  t.teardown(() => registry.close());

  const { env } = await deployEnv({
    SLIPWAY_GIT_BASE_URL: git.baseUrl,
    SLIPWAY_DEPLOY_CONCURRENCY: '4',
    SLIPWAY_CLONE_TIMEOUT: '3',
    SLIPWAY_BUILD_TIMEOUT: '6',
    SLIPWAY_PULL_TIMEOUT: '3',
    // The silent registry on loopback is allowed, exactly it.
    SLIPWAY_ALLOW_DESTINATIONS: `127.0.0.1:${registry.port}`,
  });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Failures');
  t.teardown(() => removeProjectLeftovers(p.id));
  const source = (name: string, repo: string, extra: Record<string, unknown> = {}) =>
    createService(s, p.id, { name, repoFullName: repo, branch: 'main', internalPort: 8080, ...extra });
  const image = (name: string, dockerImage: string) =>
    createService(s, p.id, { name, repoUrl: 'docker-image', dockerImage, branch: 'main', runtimeMode: 'web', internalPort: 8000 });

  await t.test('a private repository without its token: git authentication fails', async (t) => {
    const svc = await source('no-token', 'acme/private');
    const { done, log } = await failedDeployment(s, svc.id);
    t.match(done, { status: 'failed', reason: /^git clone failed: git clone exited with code 128: could not read Username for 'http:\/\/127\.0\.0\.1:\d+': terminal prompts disabled$/ });
    t.match(log, /Deployment failed: git clone failed/);
  });

  await t.test('a wrong token: git authentication fails, and the token is in no answer', async (t) => {
    const svc = await source('wrong-token', 'acme/private', { gitToken: 'ghp_notTheRightOne99' });
    const { done, log } = await failedDeployment(s, svc.id);
    // Git sends the header, gets 401, and would then ask for a user name, which it may not.
    t.match(done, { status: 'failed', reason: /^git clone failed: git clone exited with code 128: could not read Username for 'http:\/\/127\.0\.0\.1:\d+': terminal prompts disabled$/ });
    const sent = `Basic ${Buffer.from('x-access-token:ghp_notTheRightOne99').toString('base64')}`;
    t.ok(git.requests.some((r) => r.authorization === sent), 'the stored token was offered and refused');
    t.notMatch(log, 'ghp_notTheRightOne99');
    const right = await source('right-token', 'acme/private', { gitToken: TOKEN });
    const ok = await failedDeployment(s, right.id);
    t.equal(ok.done.status, 'succeeded', 'the right token clones the same repository');
  });

  await t.test('a branch that does not exist', async (t) => {
    const svc = await source('no-branch', 'acme/private', { gitToken: TOKEN, branch: 'release/9' });
    const { done, log } = await failedDeployment(s, svc.id);
    t.match(done, { status: 'failed', reason: 'git clone failed: git clone exited with code 128: Remote branch release/9 not found in upstream origin' });
    t.match(log, /Cloning .* \(branch release\/9, depth 1\)/);
  });

  await t.test('an image that cannot be pulled', async (t) => {
    const svc = await image('unpullable', 'nginx:1.27');
    const { done, log } = await failedDeployment(s, svc.id);
    t.match(done, { status: 'failed', reason: /^pulling nginx:1\.27 failed: .+/ });
    t.match(log, /Pulling nginx:1\.27/);
    t.same(await containersOf({ [LABEL.service]: svc.id }), [], 'no container was created');
  });

  await t.test('a clone that hangs ends at the clone timeout, and its git process is stopped', async (t) => {
    const svc = await source('hung-clone', 'acme/hung');
    const { done } = await failedDeployment(s, svc.id);
    t.match(done, { status: 'failed', reason: 'git clone did not finish within 3 s' });
    t.equal(git.held('acme/hung'), 1, 'the clone really was waiting on the server');
    const left = await eventually(async () => [...gitProcessesOf(`${git.baseUrl}/acme/hung`).values()], (list) => list.length === 0, 10_000);
    t.same(left, [], 'no git process of the clone is left');
  });

  await t.test('a build that hangs ends at the build timeout, and the build container is gone', async (t) => {
    const svc = await source('hung-build', 'acme/slow-build');
    const { done, log } = await failedDeployment(s, svc.id);
    t.match(done, { status: 'failed', reason: 'docker build did not finish within 6 s' });
    t.match(log, /slow-build-started/, 'the build had really started');
    const building = async () => (await docker.listContainers({ all: true })).filter((c) => c.Command.includes('slow-build-started'));
    const left = await eventually(building, (list) => list.length === 0, 20_000);
    t.same(left, [], 'the engine stopped the build and removed its container');
    t.same(await imagesOf({ [LABEL.service]: svc.id }), [], 'no image was left');
  });

  await t.test('a pull that hangs ends at the pull timeout', async (t) => {
    const reference = `127.0.0.1:${registry.port}/acme/hangs:1`;
    const svc = await image('hung-pull', reference);
    const { done, log } = await failedDeployment(s, svc.id);
    t.match(done, { status: 'failed', reason: `pulling ${reference} did not finish within 3 s` });
    t.match(log, `Pulling ${reference}`);
  });
});

t.test('deployment logs cut long lines and stop at 50,000 lines, saying so and how it ended', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/chatty', versionedApp('chatty', { buildStep: `RUN python3 -c "print('L' * 5000)"\nRUN seq 1 60000` }));
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Chatty');
  t.teardown(() => removeProjectLeftovers(p.id));
  const svc = await createService(s, p.id, { name: 'chatty', repoFullName: 'acme/chatty', branch: 'main', internalPort: 8080 });
  const queued = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment;
  const done = await waitForDeployment(s, svc.id, queued.id, 180_000);
  t.equal(done.status, 'succeeded');

  const logs = (await s.call('GET', `/api/deployments/${queued.id}/logs`)).body.logs as { id: number; line: string; stream: string }[];
  const long = logs.find((l) => l.line.startsWith('LLLL'));
  t.equal(long?.line, `${'L'.repeat(4096)} … [line truncated]`, 'a line longer than 4 KiB is cut at 4 KiB and says so');
  t.same(logs.map((l) => l.id), logs.map((_, i) => i + 1), 'ids stay 1..n');
  t.equal(logs[50_000]?.line, '[log truncated after 50000 lines]', 'line 50,001 says the log was cut');
  t.equal(logs[50_000]?.stream, 'system');
  const after = logs.slice(50_001);
  t.ok(after.length > 0, 'Slipway still says what happened after the cut');
  t.same(after.filter((l) => l.stream !== 'system'), [], 'only its own lines');
  t.match(after.at(-1)?.line, /^Deployment succeeded/, 'the log ends with how the deployment ended');
  t.notOk(logs.some((l) => l.line === '60000'), 'output past the cap is not stored');
  t.equal(logs.filter((l) => l.line === '[log truncated after 50000 lines]').length, 1, 'the cut is said once');
});
