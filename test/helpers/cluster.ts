import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { removeSwarmNetwork, startSwarmNode, type SwarmNode } from './swarm-nodes.js';

const run = promisify(execFile);

export const CLUSTER_IMAGES = { registry: 'slipway/cluster-registry:bookworm', proxy: 'slipway/cluster-caddy:bookworm', agent: 'slipway/cluster-agent:bookworm' };

/** Where each test node's engine also listens inside its own mount namespace (scripts/lib/swarm-nodes.sh). */
export const NODE_SOCKET = '/run/slipway-test-node/docker.sock';

/** The environment of a Slipway whose engine is `manager`'s, with the local stand-ins for registry:2, caddy:2 and alpine/socat. */
export const clusterEnv = (manager: SwarmNode, registryPort: number) => ({
  SLIPWAY_DOCKER_SOCKET: manager.socket,
  SLIPWAY_CLUSTER_REGISTRY_IMAGE: CLUSTER_IMAGES.registry,
  SLIPWAY_CLUSTER_PROXY_IMAGE: CLUSTER_IMAGES.proxy,
  SLIPWAY_CLUSTER_REGISTRY_PORT: String(registryPort),
  SLIPWAY_CLUSTER_AGENT_IMAGE: CLUSTER_IMAGES.agent,
  SLIPWAY_CLUSTER_NODE_SOCKET: NODE_SOCKET,
  // The node watch asks Swarm at each reconcile tick.
  SLIPWAY_RECONCILE_INTERVAL: '1',
});

/** Why cluster tests cannot run here, or false: they need root (namespaces) and the host's engine for the images. */
export async function clusterUnavailable(): Promise<string | false> {
  if (process.getuid?.() !== 0) return 'cluster tests start Docker engines in network namespaces: they need root';
  try {
    await run('docker', ['image', 'inspect', CLUSTER_IMAGES.registry], { timeout: 10_000 });
    return false;
  } catch {
    return `${CLUSTER_IMAGES.registry} is missing: npm test builds it`;
  }
}

/** Copies host images into a node's engine (same ids: a service referencing sha256:<id> needs no pull). */
export async function loadImages(node: SwarmNode, images: readonly string[]) {
  if (images.length === 0) return;
  await run('bash', ['-c', `docker save ${images.join(' ')} | docker -H unix://${node.socket} load -q`], { timeout: 300_000 });
}

export const dockerOf = (node: SwarmNode) => new Docker({ socketPath: node.socket });

/**
 * Engines in namespaces for one test file: node `indices[0]` will be the manager; those in `noNewPrivileges`
 * have daemons that start every container with no-new-privileges. Torn down in SWARM-NOTES'
 * order whatever the test left: services, workers leave and stop, the manager leaves and stops, the CA files go.
 */
export async function startNodes(indices: readonly number[], images: readonly string[], options: { noNewPrivileges?: readonly number[] } = {}) {
  const nodes: SwarmNode[] = [];
  try {
    for (const index of indices) nodes.push(await startSwarmNode(index, { noNewPrivileges: options.noNewPrivileges?.includes(index) ?? false }));
    await Promise.all(nodes.map((node) => loadImages(node, images)));
  } catch (error) {
    for (const node of nodes) await node.stop().catch(() => undefined);
    throw error;
  }
  const certDirs: string[] = [];
  return {
    nodes,
    /** A registry CA directory the test made Slipway write under /etc/docker/certs.d, removed at teardown. */
    trusts: (registry: string) => certDirs.push(`/etc/docker/certs.d/${registry}`),
    async stop() {
      const [manager, ...workers] = nodes;
      const managerDocker = dockerOf(manager!);
      for (const s of await managerDocker.listServices().catch(() => [])) await managerDocker.getService(s.ID).remove().catch(() => undefined);
      for (const worker of workers) {
        await dockerOf(worker).swarmLeave({ force: true }).catch(() => undefined);
        await worker.stop();
      }
      await managerDocker.swarmLeave({ force: true }).catch(() => undefined);
      await manager!.stop();
      for (const dir of certDirs) rmSync(dir, { recursive: true, force: true });
      await removeSwarmNetwork();
    },
  };
}

interface Caller {
  call(method: string, path: string, options?: { body?: unknown }): Promise<{ status: number; body: any }>;
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Every kind of cluster decision and observation, through the API: init, two join commands, a node joined with
 * the command, labelled, frozen (down) and back, drained, left (down again) and removed. For the rebuild test.
 */
export async function runClusterHistory(s: Caller, manager: SwarmNode, worker: SwarmNode) {
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await s.call(method, path, { body });
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await must('POST', '/api/cluster', { advertiseAddress: manager.address });
  await must('POST', '/api/cluster/nodes', { role: 'manager' });
  const { joinCommand } = await must('POST', '/api/cluster/nodes', {});
  await run('sh', ['-c', joinCommand], { env: { ...process.env, DOCKER_HOST: `unix://${worker.socket}` }, timeout: 60_000 });
  const workerId = (await dockerOf(worker).info()).Swarm.NodeID as string;
  await must('PATCH', `/api/cluster/nodes/${workerId}`, { labels: { zone: 'b' } });
  // A node that stops answering is recorded down, and back once it answers again.
  const stateOf = async () => ((await s.call('GET', '/api/cluster/nodes')).body.nodes as { id: string; state: string }[]).find((n) => n.id === workerId)?.state;
  const eventsOf = async (type: string) => ((await s.call('GET', `/api/events?type=${type}`)).body.events as unknown[]).length;
  worker.pause();
  try {
    await until('the frozen node recorded down', async () => (await eventsOf('ClusterNodeWentDown')) === 1);
  } finally {
    worker.resume();
  }
  await until('the node recorded back', async () => (await stateOf()) === 'ready' && (await eventsOf('ClusterNodeCameBack')) === 1);
  await must('PATCH', `/api/cluster/nodes/${workerId}`, { availability: 'drain' });
  await dockerOf(worker).swarmLeave({});
  for (let tries = 0; ; tries++) {
    const removed = await s.call('DELETE', `/api/cluster/nodes/${workerId}`);
    if (removed.status === 200) return;
    // 409 until the manager sees the node down.
    if (removed.status !== 409 || tries > 300) throw new Error(`remove the node: ${removed.status} ${JSON.stringify(removed.body)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
