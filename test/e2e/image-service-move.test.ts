import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, logLines, outcome, probe } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { freePort, waitFor } from '../helpers/net.js';
import { allowingIn, destinationOf } from '../helpers/outbound.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const suffix = `${process.pid}-${Date.now()}`;
const tagged: string[] = [];

/** A local image distinct from the test image (its own id), answering like it; built here, in no registry. */
function localImage(tag: string, version: string): string {
  execFileSync('docker', ['build', '-q', '-t', tag, '-'], { input: `FROM ${TEST_IMAGES.web}\nLABEL slipway.test.version=${version}\n`, stdio: ['pipe', 'ignore', 'inherit'] });
  tagged.push(tag);
  return imageIdOf(tag);
}
const imageIdOf = (reference: string) => execFileSync('docker', ['image', 'inspect', '-f', '{{.Id}}', reference], { encoding: 'utf8' }).trim();

/** What the deployment recorded of its image. */
async function imageBuilt(s: TestServer, deploymentId: string) {
  const events = await s.app.store.readStream(`deployment-${deploymentId}`);
  return events.find((e) => e.type === 'DeploymentImageBuilt')?.data as Record<string, unknown> | undefined;
}

t.test('an image service moves to another image by PATCH; each deploy resolves its tag again and records the image id', { skip: await requireDocker() }, async (t) => {
  t.teardown(async () => {
    for (const tag of tagged) await docker.getImage(tag).remove().catch(() => undefined);
  });
  const { env } = await deployEnv();
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Image moves');
  t.teardown(() => removeProjectLeftovers(p.id));
  const svc = await createService(s, p.id, { name: 'img', repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web, internalPort: 8000 });

  await t.test('an image only present here (built on this host): it runs without a pull, the log says so, its id is recorded', async (t) => {
    const { done } = await deploy(s, svc.id);
    t.equal(outcome(done), 'succeeded');
    const log = (await logLines(s, done.id)).join('\n');
    t.notMatch(log, /Pulling|Could not pull/, 'no registry is asked for what no registry has');
    t.match(log, `Image ${TEST_IMAGES.web} is ${imageIdOf(TEST_IMAGES.web)} (present on this machine, not pulled)`);
    t.match(await imageBuilt(s, done.id), { imageTag: TEST_IMAGES.web, buildMethod: 'image', imageId: imageIdOf(TEST_IMAGES.web) });
  });

  const moved = `slipway-small-test/moved-${suffix}:v2`;
  const v2 = localImage(moved, '2');

  await t.test('PATCH dockerImage moves it; the next deploy runs the new image', async (t) => {
    const patched = await s.call('PATCH', `/api/services/${svc.id}`, { body: { dockerImage: moved } });
    t.equal(patched.status, 200);
    t.match(patched.body.service, { dockerImage: moved, repoFullName: `image:${moved}` });
    const { done } = await deploy(s, svc.id);
    t.equal(outcome(done), 'succeeded');
    t.match(await imageBuilt(s, done.id), { imageTag: moved, imageId: v2 });
    const running = await docker.getContainer(`slipway-${svc.slug}-${done.id}`).inspect();
    t.equal(running.Image, v2, 'the container runs that image');
    t.equal((await probe(svc.hostPort)).status, 200);
  });

  await t.test('a tag that moved is followed at the next deploy', async (t) => {
    const v3 = localImage(moved, '3');
    t.not(v3, v2);
    const { done } = await deploy(s, svc.id);
    t.equal(outcome(done), 'succeeded');
    t.match(await imageBuilt(s, done.id), { imageTag: moved, imageId: v3 });
    t.match((await logLines(s, done.id)).join('\n'), `Image ${moved} is ${v3}`);
  });

  await t.test('a registry the outbound policy refuses: the local image runs, without a pull', async (t) => {
    const port = await freePort();
    const reference = `127.0.0.1:${port}/acme/local:1`;
    execFileSync('docker', ['tag', moved, reference]);
    tagged.push(reference);
    const allow = (urls: string[]) => s.call('PATCH', '/api/settings', { body: { allowedDestinations: urls.map(destinationOf) } });
    const refused = await s.call('PATCH', `/api/services/${svc.id}`, { body: { dockerImage: reference } });
    t.equal(refused.status, 400, 'PATCH vets the registry as create does');
    t.match(refused.body, { error: { code: 'forbidden_destination' } });
    t.equal((await allow([`http://127.0.0.1:${port}`])).status, 200);
    t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { dockerImage: reference } })).status, 200, 'accepted while allowed');
    t.equal((await allow([])).status, 200);
    const { done } = await deploy(s, svc.id);
    t.equal(outcome(done), 'succeeded');
    const log = (await logLines(s, done.id)).join('\n');
    t.notMatch(log, `Pulling ${reference}`, 'no pull was started');
    t.match(log, `Image ${reference} is ${imageIdOf(reference)} (present on this machine, not pulled)`);
    t.match(await imageBuilt(s, done.id), { imageTag: reference, imageId: imageIdOf(reference), digest: null });
  });

  await t.test("another project's build on this host is not this project's to run", async (t) => {
    const foreign = `slipway-small-test/foreign-${suffix}:1`;
    execFileSync('docker', ['build', '-q', '-t', foreign, '-'], { input: `FROM ${TEST_IMAGES.web}\nLABEL slipway.project=another-project\n`, stdio: ['pipe', 'ignore', 'inherit'] });
    tagged.push(foreign);
    t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { dockerImage: foreign } })).status, 200);
    const { done } = await deploy(s, svc.id);
    t.match(done, { status: 'failed', reason: `the image ${foreign} was built here by another project's deployment; an image service runs an image from a registry or one built outside Slipway` });
    t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { dockerImage: moved } })).status, 200);
  });

  await t.test('PATCH dockerImage is refused where it does not apply', async (t) => {
    t.match(await s.call('PATCH', `/api/services/${svc.id}`, { body: { dockerImage: 'Not An Image!' } }), { status: 400, body: { error: { code: 'validation_failed' } } });
    t.match(await s.call('PATCH', `/api/services/${svc.id}`, { body: { dockerImage: null } }), { status: 400, body: { error: { code: 'validation_failed' } } });
    const source = await createService(s, p.id, { name: 'src', repoFullName: 'acme/src', branch: 'main' });
    t.match(await s.call('PATCH', `/api/services/${source.id}`, { body: { dockerImage: 'nginx:1.27' } }), {
      status: 400,
      body: { error: { code: 'validation_failed', message: /source service runs no dockerImage/ } },
    });
  });
});

const REGISTRY_BIN = '/usr/bin/docker-registry';

/** Debian's `docker-registry` (distribution 2.8) on a loopback port, storing in a temporary directory. */
async function startRegistry() {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-registry-'));
  const port = await freePort();
  const config = join(dir, 'config.yml');
  writeFileSync(config, `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: 127.0.0.1:${port}\n`);
  const child = spawn(REGISTRY_BIN, ['serve', config], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor('the registry to answer', () => fetch(`${url}/v2/`).then((r) => r.status).catch(() => 0), (status) => status === 200, 15_000);
  return {
    url,
    host: `127.0.0.1:${port}`,
    stop: async () => {
      child.kill();
      await new Promise((r) => child.once('exit', r));
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

t.test('a registry: a moved :latest is pulled and its digest recorded; once the registry is gone the local image runs', {
  skip: (await requireDocker()) || (existsSync(REGISTRY_BIN) ? false : 'Debian\'s docker-registry is not installed (apt-get install docker-registry)'),
}, async (t) => {
  const registry = await startRegistry();
  let running = true;
  t.teardown(async () => {
    if (running) await registry.stop();
    registry.remove();
    for (const tag of tagged) await docker.getImage(tag).remove().catch(() => undefined);
  });
  const reference = `${registry.host}/acme/moving:latest`;
  const push = (version: string) => {
    const id = localImage(reference, version);
    execFileSync('docker', ['push', reference], { stdio: 'ignore' });
    return id;
  };
  const a = push(`a-${suffix}`);
  const { env } = await deployEnv(allowingIn({}, registry.url));
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Registry');
  t.teardown(() => removeProjectLeftovers(p.id));
  const svc = await createService(s, p.id, { name: 'moving', repoUrl: 'docker-image', dockerImage: reference, internalPort: 8000 });

  const first = await deploy(s, svc.id);
  t.equal(outcome(first.done), 'succeeded');
  const digestOfA = (await docker.getImage(a).inspect()).RepoDigests.find((d) => d.startsWith(`${registry.host}/acme/moving@`));
  t.match(digestOfA, /@sha256:[0-9a-f]{64}$/);
  t.match(await imageBuilt(s, first.done.id), { imageTag: reference, imageId: a, digest: digestOfA }, 'the digest the registry gave is recorded');
  t.notMatch((await logLines(s, first.done.id)).join('\n'), /Could not pull/);

  // The tag moves in the registry; the local tag is left on the old image, as on a host that pulled long ago.
  const b = push(`b-${suffix}`);
  execFileSync('docker', ['tag', a, reference]);
  t.not(a, b);
  const second = await deploy(s, svc.id);
  t.equal(outcome(second.done), 'succeeded');
  t.match(await imageBuilt(s, second.done.id), { imageId: b, digest: /@sha256:/ }, 'the moved tag was pulled and runs');
  t.equal((await docker.getContainer(`slipway-${svc.slug}-${second.done.id}`).inspect()).Image, b);

  await registry.stop();
  running = false;
  const third = await deploy(s, svc.id);
  t.equal(outcome(third.done), 'succeeded', 'the registry gone: the local image runs');
  t.match((await logLines(s, third.done.id)).join('\n'), new RegExp(`Could not pull ${reference.replace(/[.]/g, '\\.')} \\(pulling .+ failed: .+\\); using the image present locally`));
  t.match(await imageBuilt(s, third.done.id), { imageId: b });
});
