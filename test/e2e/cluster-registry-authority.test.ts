import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import t from 'tap';
import { AGENT_SERVICE } from '../../src/cluster/cluster-agent.js';
import { PRIVILEGES } from '../../src/runtime/container-privileges.js';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { followProgress } from '../../src/cluster/configured-container.js';
import { ensureRegistry } from '../../src/cluster/registry.js';
import { trustOnNode } from '../../src/cluster/registry-trust.js';
import { createAuthority } from '../../src/engines/tls-authority.js';
import { requireCaddy } from '../helpers/caddy.js';
import { CLUSTER_IMAGES, clusterEnv, clusterUnavailable, dockerOf, loadImages, startNodes } from '../helpers/cluster.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { createService, testWebService } from '../helpers/http-resources.js';
import { waitFor } from '../helpers/net.js';
import { startSlipwayProcess, type SlipwayProcess } from '../helpers/slipway-process.js';

const run = promisify(execFile);
// Node indices of this file's engines: other cluster files use 1–19 at the same time.
const MANAGER = 24;
const WORKER = 25;
const REGISTRY_PORT = 5443;

t.setTimeout(600_000);

/** The certificate the registry serves: whether `caPem` alone vouches for it, and who signed it. */
function served(address: string, caPem: string): Promise<{ authorized: boolean; issuer: string }> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port: Number(port), ca: caPem, rejectUnauthorized: false }, () => {
      const issuer = String(socket.getPeerCertificate().issuer?.CN ?? '');
      resolve({ authorized: socket.authorized, issuer });
      socket.end();
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('error', reject);
  });
}

t.test(
  'cluster: the registry has an authority of its own; an installation on another one is moved at start, every node trusting only the new one; tasks run with the app profile',
  { skip: (await requireDocker()) || (await requireCaddy()) || (await clusterUnavailable()) },
  async (t) => {
    // The worker's daemon starts every container with no-new-privileges (daemon.json), the manager's does not.
    const cluster = await startNodes([MANAGER, WORKER], [], { noNewPrivileges: [WORKER] });
    t.teardown(() => cluster.stop());
    const [manager, worker] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    await loadImages(manager, [CLUSTER_IMAGES.registry, CLUSTER_IMAGES.proxy, CLUSTER_IMAGES.agent, TEST_IMAGES.web]);
    const { env } = await deployEnv({ ...clusterEnv(manager, REGISTRY_PORT), SLIPWAY_CLUSTER_ROUTER: `${manager.address}:7080` });
    const dataDir = mkdtempSync(join(tmpdir(), 'slipway-registry-ca-'));
    const managerCerts = mkdtempSync(join(tmpdir(), 'slipway-manager-certs-'));
    let s: SlipwayProcess = await startSlipwayProcess(dataDir, env);
    t.teardown(async () => {
      await s.kill();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(managerCerts, { recursive: true, force: true });
    });
    const registry = `${manager.address}:${REGISTRY_PORT}`;
    cluster.trusts(registry);
    const nodeTrust = `/etc/docker/certs.d/${registry}`;

    t.equal((await s.call('POST', '/api/cluster', { body: { advertiseAddress: manager.address } })).status, 200, 'the installation becomes a Swarm manager');
    const join1 = (await s.call('POST', '/api/cluster/nodes', { body: {} })).body;
    await run('sh', ['-c', join1.joinCommand], { env: { ...process.env, DOCKER_HOST: `unix://${worker.socket}` }, timeout: 60_000 });
    await waitFor('two ready nodes', async () => (await s.call('GET', '/api/cluster/nodes')).body.nodes as { state: string }[], (l) => l?.length === 2 && l.every((n) => n.state === 'ready'));
    const first = await served(registry, join1.registryCaPem);
    t.ok(first.authorized, 'the registry’s certificate chains to the CA the join command gives the nodes');
    t.equal(first.issuer, 'Slipway cluster registry', 'that CA is the registry’s own, not the installation’s (Slipway database CA)');
    t.equal(readFileSync(join(nodeTrust, 'ca.crt'), 'utf8'), join1.registryCaPem, 'the nodes trust that CA for the registry');

    // An installation whose registry is on another authority (as every one before the registry had its own):
    // its authority is gone from the data directory, so the next start makes a new one and must move to it. The
    // manager's trust goes elsewhere at that start: what lands in the nodes' directory came through their agents.
    await s.kill();
    rmSync(join(dataDir, 'cluster-registry-ca.json'));
    s = await startSlipwayProcess(dataDir, { ...env, SLIPWAY_DOCKER_CERTS_DIR: managerCerts });
    // The API answers at once; the move runs beside it (deployments wait for it).
    await waitFor('the move at start', async () => s.logs(), (logs) => /now from its own authority|could not be checked/.test(logs), 180_000);
    const join2 = (await s.call('POST', '/api/cluster/nodes', { body: {} })).body;
    t.not(join2.registryCaPem, join1.registryCaPem, 'a new registry authority');
    const moved = await served(registry, join2.registryCaPem);
    t.ok(moved.authorized, 'the registry’s certificate was issued again, by the new authority');
    t.notOk((await served(registry, join1.registryCaPem)).authorized, 'the old authority no longer vouches for it');
    t.equal(readFileSync(join(nodeTrust, 'ca.crt'), 'utf8'), join2.registryCaPem, 'the worker’s trust was replaced through its agent');
    t.same(readdirSync(nodeTrust), ['ca.crt'], 'nothing else is trusted for the registry’s address');
    t.equal(readFileSync(join(managerCerts, registry, 'ca.crt'), 'utf8'), join2.registryCaPem, 'and the manager’s, where its engine reads it');
    t.match(s.logs(), /now from its own authority/, 'the move is logged');
    t.notMatch(s.logs(), /still trusts the registry’s old CA/, 'no node was left behind');

    // The worker pulls from the re-issued registry: a release pinned to it goes live.
    const workerId = (await dockerOf(worker).info()).Swarm.NodeID as string;
    t.equal((await s.call('PATCH', `/api/cluster/nodes/${workerId}`, { body: { labels: { place: 'worker' } } })).status, 200);
    const project = (await s.call('POST', '/api/projects', { body: { name: 'Walls' } })).body.project;
    const svc = await createService(s, project.id, { ...testWebService('web'), nodeLabels: { place: 'worker' } });
    t.equal(outcome((await deploy(s, svc.id)).done), 'succeeded', 'a release on the worker, pulled from the registry, goes live');

    // Its task on the worker's engine has the single server's app profile.
    const [task] = await dockerOf(worker).listContainers({ filters: { label: [`${LABEL.service}=${svc.id}`] } });
    t.ok(task, 'its task runs on the worker');
    const host = (await dockerOf(worker).getContainer(task!.Id).inspect()).HostConfig;
    const bare = (caps: readonly string[] | null | undefined) => (caps ?? []).map((c) => c.replace(/^CAP_/, '')).sort();
    t.same(bare(host.CapDrop), bare(PRIVILEGES.app.capDrop), `the app profile's capabilities dropped (${JSON.stringify(host.CapDrop)})`);
    t.equal(host.PidsLimit, PRIVILEGES.app.pidsLimit, 'the app profile’s pids limit');
    // This engine speaks API 1.41: no-new-privileges cannot be in the spec; the worker's daemon sets it.
    const { stdout: status } = await run('docker', ['-H', `unix://${worker.socket}`, 'exec', task!.Id, 'cat', '/proc/1/status']);
    t.match(status, /^NoNewPrivs:\s*1$/m, 'the task runs with no-new-privileges, from the worker daemon’s default');
    const managerId = (await dockerOf(manager).info()).Swarm.NodeID as string;
    const seen = await waitFor(
      'each node’s no-new-privileges known',
      async () => Object.fromEntries(((await s.call('GET', '/api/cluster/nodes')).body.nodes as { id: string; noNewPrivileges: boolean | null }[]).map((n) => [n.id, n.noNewPrivileges])),
      (byId) => byId[workerId] !== null && byId[managerId] !== null,
      60_000,
    );
    t.same(seen, { [workerId]: true, [managerId]: false }, 'the node list says which daemons set no-new-privileges by default');
    t.notMatch(s.logs(), /runs app tasks without no-new-privileges/, 'no warning while app tasks run only where the daemon sets it');
    // A task on the manager, whose old engine's daemon does not: warned about in the log.
    t.equal((await s.call('PATCH', `/api/cluster/nodes/${managerId}`, { body: { labels: { place: 'manager' } } })).status, 200);
    const onManager = await createService(s, project.id, { ...testWebService('there'), nodeLabels: { place: 'manager' } });
    t.equal(outcome((await deploy(s, onManager.id)).done), 'succeeded', 'a release on the manager goes live');
    const warned = await waitFor('the warning', async () => s.logs(), (logs) => /runs app tasks without no-new-privileges/.test(logs), 60_000);
    t.match(warned, /node node24 runs app tasks without no-new-privileges: its engine \(20\.10[^)]*\) cannot take it in a service spec/, 'the log names the manager and why');
    t.notMatch(warned, /node node25 runs app tasks without/, 'and not the worker');

    // The write itself, on a node's engine: from the agent's image, into the directory given.
    const elsewhere = mkdtempSync(join(tmpdir(), 'slipway-node-certs-'));
    t.teardown(() => rmSync(elsewhere, { recursive: true, force: true }));
    const agentImage = (await dockerOf(manager).getService(AGENT_SERVICE).inspect()).Spec.TaskTemplate.ContainerSpec.Image as string;
    await trustOnNode(dockerOf(worker), agentImage, registry, join2.registryCaPem, elsewhere);
    t.equal(readFileSync(join(elsewhere, registry, 'ca.crt'), 'utf8'), join2.registryCaPem, 'a container on the node writes the CA');
    await t.rejects(trustOnNode(dockerOf(worker), agentImage, 'x;rm -rf /:1', 'ca', elsewhere), /not a registry address/, 'an address that is not host:port is refused');
    t.same(await dockerOf(worker).listContainers({ all: true, filters: { ancestor: [agentImage], status: ['exited', 'created'] } }), [], 'and leaves no container behind');

    // Whatever else answers at the registry's address with a certificate of another CA (here a stand-in for the
    // installation's, whose keys projects can reach) is refused by the nodes. Last: this replaces the registry.
    const other = await createAuthority('Slipway database CA');
    await ensureRegistry(dockerOf(manager), { image: CLUSTER_IMAGES.registry, advertiseAddress: manager.address, port: REGISTRY_PORT, authority: other, access: { address: registry, username: 'slipway', password: 'impostor' } });
    t.equal((await served(registry, other.certPem)).issuer, 'Slipway database CA', 'a registry with a certificate of another CA answers at the address');
    const pullOnWorker = async () => {
      const stream = await dockerOf(worker).createImage({ username: 'slipway', password: 'impostor', serveraddress: registry }, { fromImage: `${registry}/slipway/anything`, tag: 'latest' });
      await followProgress(dockerOf(worker), stream);
    };
    await t.rejects(pullOnWorker(), /x509|certificate signed by unknown authority/, 'the worker refuses its certificate');
  },
);
