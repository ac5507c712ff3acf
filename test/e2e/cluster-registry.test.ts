import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { request } from 'node:https';
import bcrypt from 'bcryptjs';
import type Docker from 'dockerode';
import t, { type Test } from 'tap';
import { extract } from 'tar-stream';
import { listTags } from '../../src/cluster/registry-api.js';
import { collectGarbage, deleteManifestsOf } from '../../src/cluster/registry-cleanup.js';
import { RegistryLock } from '../../src/cluster/registry-lock.js';
import { REGISTRY_CONTAINER, REGISTRY_VOLUME, ensureRegistry, pushImage, registryAuth, trustRegistryAuthority, type RegistryAccess } from '../../src/cluster/registry.js';
import { createAuthority } from '../../src/engines/tls-authority.js';
import { CLUSTER_IMAGES, clusterUnavailable, dockerOf, loadImages } from '../helpers/cluster.js';
import { TEST_IMAGES, docker as hostDocker } from '../helpers/docker.js';
import { required } from '../helpers/requirements.js';
import { removeSwarmNetwork, startSwarmNode, type SwarmNode } from '../helpers/swarm-nodes.js';

t.setTimeout(600_000);

async function unavailable(): Promise<string | false> {
  const reason = await clusterUnavailable();
  if (reason) return reason;
  return hostDocker
    .getImage(TEST_IMAGES.web)
    .inspect()
    .then(
      () => false as const,
      () => `${TEST_IMAGES.web} is missing: npm test builds it`,
    );
}

/** GET over TLS with `ca` as the only root (none: the system's roots). */
function get(address: string, path: string, opts: { ca?: string; auth?: RegistryAccess; accept?: string } = {}) {
  const [host, port] = address.split(':');
  return new Promise<{ status: number; digest: string | undefined }>((resolve, reject) => {
    const req = request(
      {
        host,
        port: Number(port),
        path,
        timeout: 10_000,
        ...(opts.ca ? { ca: opts.ca } : {}),
        ...(opts.auth ? { auth: `${opts.auth.username}:${opts.auth.password}` } : {}),
        ...(opts.accept ? { headers: { accept: opts.accept } } : {}),
      },
      (res) => {
        res.resume();
        const digest = res.headers['docker-content-digest'];
        resolve({ status: res.statusCode ?? 0, digest: typeof digest === 'string' ? digest : undefined });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end();
  });
}

/** A pull on `docker`, failing on an HTTP error or on an error message inside the progress stream. */
async function pull(docker: Docker, ref: string, access: RegistryAccess | null) {
  const at = ref.includes('@') ? ref.indexOf('@') : ref.lastIndexOf(':');
  const image = { fromImage: ref.slice(0, at), tag: ref.slice(at + 1) };
  const stream = await (access ? docker.createImage(registryAuth(access), image) : docker.createImage(image));
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(stream, (error, messages: { error?: string }[]) => {
      const failed = messages.find((m) => m.error);
      if (error || failed) reject(error ?? new Error(failed!.error));
      else resolve();
    }),
  );
}

/** The files under `dir` in a container: name, mode and content. */
async function filesIn(docker: Docker, container: string, dir: string) {
  const archive = await docker.getContainer(container).getArchive({ path: dir });
  const files = new Map<string, { mode: number; content: string }>();
  const reader = extract();
  reader.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c) => void chunks.push(c as Buffer));
    stream.on('end', () => {
      files.set(header.name, { mode: (header.mode ?? 0) & 0o777, content: Buffer.concat(chunks).toString() });
      next();
    });
  });
  await new Promise<void>((resolve, reject) => {
    reader.on('finish', resolve);
    reader.on('error', reject);
    archive.pipe(reader);
  });
  return files;
}

async function timed<T>(t: Test, what: string, action: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await action();
  t.comment(`${what}: ${((Date.now() - started) / 1000).toFixed(2)} s`);
  return result;
}

const MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';

t.test('cluster registry: TLS from the installation CA, htpasswd, push by digest, pull on another node', { skip: required(await unavailable()) }, async (t) => {
  const nodes: SwarmNode[] = [];
  const port = 5000;
  const address = `100.115.0.13:${port}`;
  t.teardown(async () => {
    rmSync(`/etc/docker/certs.d/${address}`, { recursive: true, force: true });
    for (const node of nodes) await node.stop().catch((error: unknown) => t.comment(`node ${node.index} did not stop cleanly: ${String(error)}`));
    await removeSwarmNetwork();
  });
  // One at a time: the first creates the bridge they share.
  const manager = await timed(t, 'node 3 started', () => startSwarmNode(3));
  nodes.push(manager);
  const worker = await timed(t, 'node 4 started', () => startSwarmNode(4));
  nodes.push(worker);
  t.equal(manager.address, '100.115.0.13', 'node 3 is at 100.115.0.13');
  await timed(t, 'images loaded into node 3', () => loadImages(manager, [CLUSTER_IMAGES.registry, TEST_IMAGES.web]));
  const docker3 = dockerOf(manager);
  const docker4 = dockerOf(worker);

  const authority = await createAuthority('Slipway registry test');
  const access: RegistryAccess = { address, username: 'slipway', password: randomBytes(18).toString('base64url') };
  const options = { image: CLUSTER_IMAGES.registry, advertiseAddress: manager.address, port, authority, access };

  await timed(t, 'registry started (ensureRegistry)', () => ensureRegistry(docker3, options));
  const info = await docker3.getContainer(REGISTRY_CONTAINER).inspect();
  t.ok(info.State.Running, 'the registry runs on node 3');
  t.match(info.Config.Labels, { 'slipway.managed': 'true', 'slipway.role': 'registry' }, 'labelled as Slipway’s registry');
  t.equal(info.HostConfig.RestartPolicy?.Name, 'unless-stopped', 'restarted with the engine unless stopped');
  t.same(info.HostConfig.PortBindings, { '5000/tcp': [{ HostIp: '', HostPort: '5000' }] }, 'published on every address of the manager');
  t.match(info.Mounts, [{ Type: 'volume', Name: REGISTRY_VOLUME, Destination: '/var/lib/registry' }], 'storage on the named volume');
  const inspected = JSON.stringify(info);
  t.notOk(inspected.includes(access.password), 'the password is nowhere in docker inspect');
  t.notOk(inspected.includes('$2'), 'nor its bcrypt hash');
  t.notOk(inspected.includes('PRIVATE KEY'), 'nor the server key');
  const files = await filesIn(docker3, REGISTRY_CONTAINER, '/etc/docker/registry/slipway');
  t.equal(files.get('slipway/server.key')?.mode, 0o600, 'the key file is 0600');
  const line = files.get('slipway/htpasswd')?.content.trim() ?? '';
  t.match(line, /^slipway:\$2[aby]\$10\$/, 'htpasswd: the user and a bcrypt hash');
  t.ok(bcrypt.compareSync(access.password, line.slice('slipway:'.length)), 'of the password');

  t.equal((await get(address, '/v2/', { ca: authority.certPem })).status, 401, 'anonymous: 401');
  t.equal((await get(address, '/v2/', { ca: authority.certPem, auth: access })).status, 200, 'with the credentials: 200');
  t.equal((await get(address, '/v2/', { ca: authority.certPem, auth: { ...access, password: 'wrong' } })).status, 401, 'a wrong password: 401');
  await t.rejects(get(address, '/v2/', {}), /self[- ]signed|unable to verify|unknown authority/i, 'a client without the CA refuses the certificate');

  // The engines read the host's certs.d: before the CA is there, neither node trusts the registry.
  const imageId = (await docker3.getImage(TEST_IMAGES.web).inspect()).Id;
  await t.rejects(pushImage(docker3, imageId, 'slipway/test-web', 'v1', access), /x509|unknown authority/i, 'an engine without the CA cannot push');
  await t.rejects(pull(docker4, `${address}/slipway/test-web:v1`, access), /x509|unknown authority/i, 'nor pull (x509)');

  trustRegistryAuthority(address, authority.certPem);
  await t.rejects(pushImage(docker3, imageId, 'slipway/test-web', 'v1', { ...access, password: 'wrong' }), /unauthorized|authentication required/i, 'a push with a wrong password fails');
  const ref = await timed(t, 'pushed test-web from node 3', () => pushImage(docker3, imageId, 'slipway/test-web', 'v1', access));
  t.match(ref, /^100\.115\.0\.13:5000\/slipway\/test-web@sha256:[0-9a-f]{64}$/, 'the reference by digest');
  const manifest = await get(address, '/v2/slipway/test-web/manifests/v1', { ca: authority.certPem, auth: access, accept: MANIFEST });
  t.equal(`${address}/slipway/test-web@${manifest.digest}`, ref, 'the digest the registry holds for the tag');

  await t.rejects(pull(docker4, ref, { ...access, password: 'wrong' }), /unauthorized|authentication required|denied/i, 'node 4: a wrong password is refused');
  await t.rejects(pull(docker4, ref, null), /unauthorized|authentication required|denied|no basic auth/i, 'and no credentials too');
  await timed(t, 'pulled by digest on node 4', () => pull(docker4, ref, access));
  t.equal((await docker4.getImage(ref).inspect()).Id, imageId, 'node 4 has the same image id');
  const app = await docker4.createContainer({
    Image: ref,
    ExposedPorts: { '8000/tcp': {} },
    HostConfig: { PortBindings: { '8000/tcp': [{ HostIp: '', HostPort: '8000' }] } },
  });
  await app.start();
  let answer = '';
  for (let i = 0; i < 50 && answer === ''; i++) {
    answer = await fetch(`http://${worker.address}:8000/`).then((r) => (r.ok ? r.text() : ''), () => '');
    if (answer === '') await new Promise((r) => setTimeout(r, 200));
  }
  t.not(answer, '', 'node 4 runs the pulled image (it answers HTTP)');
  await app.remove({ force: true });

  // Idempotent: the same configuration leaves the running container alone.
  await timed(t, 'ensureRegistry again, unchanged', () => ensureRegistry(docker3, options));
  const again = await docker3.getContainer(REGISTRY_CONTAINER).inspect();
  t.equal(again.Id, info.Id, 'same container');
  t.equal(again.State.StartedAt, info.State.StartedAt, 'not restarted');
  await docker3.getContainer(REGISTRY_CONTAINER).stop({ t: 1 });
  await ensureRegistry(docker3, options);
  const restarted = await docker3.getContainer(REGISTRY_CONTAINER).inspect();
  t.ok(restarted.Id === info.Id && restarted.State.Running, 'a stopped registry is started again, not replaced');

  // A registry that does not come up: a bounded wait and an error with its logs.
  const notARegistry = await ensureRegistry(docker3, { ...options, image: TEST_IMAGES.web, readyTimeoutMs: 3_000 }).then(
    () => null,
    (error: Error) => error.message,
  );
  t.comment(`the error: ${notARegistry}`);
  t.match(notARegistry, /did not answer at https:\/\/100\.115\.0\.13:5000\/v2\/ \(.*ECONNREFUSED.*\); its last log lines:\n.*listening/s, 'a registry that never answers fails in time, naming the cause and its last log lines');

  // A different configuration (a new password) replaces the container; the images stay.
  const rotated: RegistryAccess = { ...access, password: randomBytes(18).toString('base64url') };
  await timed(t, 'registry replaced', () => ensureRegistry(docker3, { ...options, access: rotated }));
  const replaced = await docker3.getContainer(REGISTRY_CONTAINER).inspect();
  t.not(replaced.Id, info.Id, 'a new container');
  t.equal(replaced.Image, info.Image, 'from the registry image again');
  t.equal((await get(address, '/v2/', { ca: authority.certPem, auth: access })).status, 401, 'the old password is refused');
  const digest = ref.slice(ref.indexOf('@') + 1);
  t.equal((await get(address, `/v2/slipway/test-web/manifests/${digest}`, { ca: authority.certPem, auth: rotated, accept: MANIFEST })).status, 200, 'the manifest survived the replace');
  await docker4.getImage(ref).remove({ force: true });
  await pull(docker4, ref, rotated);
  t.equal((await docker4.getImage(ref).inspect()).Id, imageId, 'node 4 pulls the image again, with the new password');

  // Clean-up: a manifest goes when every tag on it may go, its layers at the garbage collection; a digest that a
  // kept tag shares stays.
  const endpoint = { access: rotated, caPem: authority.certPem };
  const otherId = (await docker3.getImage(CLUSTER_IMAGES.registry).inspect()).Id;
  await pushImage(docker3, otherId, 'slipway/test-web', 'v2', rotated);
  await pushImage(docker3, imageId, 'slipway/test-web', 'v3', rotated);
  const blob = (id: string) => get(address, `/v2/slipway/test-web/blobs/${id}`, { ca: authority.certPem, auth: rotated }).then((r) => r.status);
  t.equal(await blob(otherId), 200, 'v2’s config layer is stored');
  const gone = await deleteManifestsOf(endpoint, 'slipway/test-web', async (tag) => tag === 'v1' || tag === 'v2');
  t.same(gone, ['v2'], 'v2 went; v1 stays, its digest is v3’s too');
  t.same((await listTags(endpoint, 'slipway/test-web')).sort(), ['v1', 'v3']);
  t.same(await deleteManifestsOf(endpoint, 'slipway/test-web', async () => true, new Set([digest])), [], 'a digest kept by name stays, whatever its tags');
  t.equal(await collectGarbage(docker3, new RegistryLock()), true, 'a registry with its layer cache off is collected');
  t.equal(await blob(otherId), 404, 'the collection deleted v2’s layers');
  t.equal(await blob(imageId), 200, 'and kept v1’s');
  await docker4.getImage(ref).remove({ force: true });
  await pull(docker4, ref, rotated);
  t.pass('v1 still pulls whole');
  // The registry keeps no cache of which layers exist: a push after the collection uploads v2's layers again.
  const again2 = await pushImage(docker3, otherId, 'slipway/test-web', 'v4', rotated);
  await pull(docker4, again2, rotated);
  t.equal((await docker4.getImage(again2).inspect()).Id, otherId, 'an image pushed again after a collection pulls whole');
  t.same(await deleteManifestsOf(endpoint, 'slipway/test-web', async () => true), ['v1', 'v3', 'v4'], 'a deleted service: every tag goes');
  t.same(await listTags(endpoint, 'slipway/test-web'), [], 'none left');
  t.same(await listTags(endpoint, 'slipway/never-pushed'), [], 'a repository never pushed has no tags');
});
