import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { versionedApp } from '../helpers/apps.js';
import { deployEnv, logLines, waitForDeployment } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { destinationOf } from '../helpers/outbound.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const SECRET = 'internal-secret-7f3a';

/** Stands where an internal service would (Caddy's admin API, a metadata service): answers every request with an HTML page. */
async function internalService() {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(404, { 'content-type': 'text/html' }).end(`<!DOCTYPE html><html><body><h1>admin</h1><p>${SECRET}</p></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, port: (server.address() as AddressInfo).port, requests, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

async function deployed(s: TestServer, serviceId: string) {
  const queued = (await s.call('POST', `/api/services/${serviceId}/deployments`)).body.deployment;
  const done = await waitForDeployment(s, serviceId, queued.id, 180_000);
  return { done, log: (await logLines(s, queued.id)).join('\n') };
}

t.test('deployments reach only allowed destinations, checked again at run time, and never repeat an outside page', { skip: await requireDocker() }, async (t) => {
  const inside = await internalService();
  t.teardown(() => inside.close());
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/app', versionedApp('by-name'));
  git.push('acme/from-inside', { Dockerfile: `ARG REGISTRY=127.0.0.1:${inside.port}\nFROM $REGISTRY/base:1\nCMD ["true"]\n` });

  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_DEPLOY_CONCURRENCY: '2', SLIPWAY_PULL_TIMEOUT: '60' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Outbound');
  t.teardown(() => removeProjectLeftovers(p.id));
  const allow = async (...urls: string[]) => {
    const r = await s.call('PATCH', '/api/settings', { body: { allowedDestinations: [git.baseUrl, ...urls].map(destinationOf) } });
    t.equal(r.status, 200, `allowed: ${urls.join(', ') || 'only the Git server'}`);
  };
  const gitPort = new URL(git.baseUrl).port;

  await t.test('a Git URL by name is cloned from the address checked for it', async (t) => {
    const svc = await createService(s, p.id, { name: 'by-name', repoUrl: `http://localhost:${gitPort}/acme/app.git`, branch: 'main', internalPort: 8080 });
    const { done, log } = await deployed(s, svc.id);
    t.equal(done.status, 'succeeded', done.reason ?? '');
    t.match(log, /Checked out commit/);
  });

  await t.test('a repository allowed at creation but refused at run time is never contacted', async (t) => {
    await allow(inside.url);
    const svc = await createService(s, p.id, { name: 'inside-repo', repoUrl: `${inside.url}/acme/app.git`, branch: 'main', internalPort: 8080 });
    await allow();
    const { done } = await deployed(s, svc.id);
    t.match(done, { status: 'failed', reason: new RegExp(`^git clone failed: 127\\.0\\.0\\.1:${inside.port} is a loopback address`) });
    t.same(inside.requests, [], 'git never connected');
  });

  await t.test('an image from a registry refused at run time is not pulled', async (t) => {
    await allow(inside.url);
    const reference = `127.0.0.1:${inside.port}/acme/app:1`;
    const svc = await createService(s, p.id, { name: 'inside-image', repoUrl: 'docker-image', dockerImage: reference, branch: 'main', internalPort: 8000 });
    await allow();
    const { done, log } = await deployed(s, svc.id);
    t.match(done, { status: 'failed', reason: new RegExp(`^pulling 127\\.0\\.0\\.1:${inside.port}/acme/app:1 refused: 127\\.0\\.0\\.1:${inside.port} is a loopback address`) });
    t.notMatch(log, /Pulling 127/, 'no pull was started');
    t.same(inside.requests, [], 'the engine never connected');
  });

  await t.test("a registry's page is never repeated in the deployment's reason or log", async (t) => {
    await allow(inside.url);
    const svc = await createService(s, p.id, { name: 'page-image', repoUrl: 'docker-image', dockerImage: `127.0.0.1:${inside.port}/acme/page:1`, branch: 'main', internalPort: 8000 });
    const { done, log } = await deployed(s, svc.id);
    t.equal(done.status, 'failed');
    t.ok(inside.requests.length > 0, `the engine did ask the allowed registry (${inside.requests.join(', ')})`);
    t.notMatch(done.reason, new RegExp(`${SECRET}|<html|<!DOCTYPE|<body`, 'i'), done.reason);
    t.notMatch(log, new RegExp(SECRET), 'nor in the log');
    t.ok(done.reason.length < 400, 'a short reason');
    await allow();
  });

  await t.test("a Dockerfile's base image from a refused registry fails the build before the engine pulls it", async (t) => {
    const before = inside.requests.length;
    const svc = await createService(s, p.id, { name: 'from-inside', repoFullName: 'acme/from-inside', branch: 'main', internalPort: 8080 });
    const { done } = await deployed(s, svc.id);
    t.match(done, { status: 'failed', reason: new RegExp(`^Dockerfile uses the image 127\\.0\\.0\\.1:${inside.port}/base:1: 127\\.0\\.0\\.1:${inside.port} is a loopback address`) });
    t.equal(inside.requests.length, before, 'the engine never connected');
  });
});
