import type Docker from 'dockerode';
import type { PemKeyPair } from '../engines/tls-authority.js';
import { LABEL } from '../runtime/container-runtime.js';
import { AGENT_SERVICE } from './cluster-agent.js';
import { authorityFingerprint } from './registry-authority.js';
import { ensureRegistry, registryAuthorityOf, trustRegistryAuthority, type RegistryAccess } from './registry.js';
import { inspectService } from './swarm-updates.js';

/** Where a node's engine reads a registry's CA (the join command writes it there). */
export const NODE_CERTS_DIR = '/etc/docker/certs.d';

/** Replaces the file in one rename: the engine never reads half a CA. */
const WRITE_CA = `set -e
dir="/certs/$SLIPWAY_REGISTRY"
mkdir -p "$dir"
printf '%s' "$SLIPWAY_CA" > "$dir/.ca.crt.new"
chmod 644 "$dir/.ca.crt.new"
mv "$dir/.ca.crt.new" "$dir/ca.crt"`;

/**
 * Makes a node's engine trust `caPem`, and only it, for the registry at `address`: a short container on the node
 * (from `image`, one the node already has: the agent's) writes `<certsDir>/<address>/ca.crt` on the node itself.
 */
export async function trustOnNode(docker: Docker, image: string, address: string, caPem: string, certsDir = NODE_CERTS_DIR): Promise<void> {
  if (!/^[A-Za-z0-9.-]+:\d+$/.test(address)) throw new Error(`not a registry address: ${JSON.stringify(address)}`);
  const container = await docker.createContainer({
    Image: image,
    Entrypoint: ['sh', '-c', WRITE_CA],
    Cmd: [],
    User: '0',
    Env: [`SLIPWAY_REGISTRY=${address}`, `SLIPWAY_CA=${caPem}`],
    Labels: { [LABEL.managed]: 'true' },
    HostConfig: { Binds: [`${certsDir}:/certs`], NetworkMode: 'none', SecurityOpt: ['no-new-privileges:true'] },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    if (StatusCode !== 0) throw new Error(`writing the registry's CA on the node exited with ${StatusCode}`);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

export interface RegistryMove {
  /** The manager's engine (the one Slipway runs beside). */
  docker: Docker;
  access: RegistryAccess;
  authority: PemKeyPair;
  registry: { image: string; advertiseAddress: string; port: number };
  /** Where the manager's engine reads registries' CAs. */
  certsDir: string;
  /** Another node's engine, through its agent. */
  nodeDocker(nodeId: string): Promise<Docker>;
}

interface NodeListing {
  ID: string;
  Status?: { State?: string };
  Description?: { Hostname?: string };
}

/**
 * At start: a registry whose certificate is not from the registry's own authority (an installation from before
 * it had one, which used the installation's) is moved to it. The other nodes' trust is replaced first, while the
 * registry still serves the certificate they trust (a node's agent may still have to be pulled from it); then the
 * registry's certificate is issued again and the manager trusts the new authority alone. Returns the nodes that
 * could not be reached: they keep the old CA until their administrator writes the new one (the join command's first step).
 */
export async function moveRegistryToItsAuthority(move: RegistryMove): Promise<{ moved: boolean; unreached: { node: string; error: string }[] }> {
  const { docker, authority } = move;
  if ((await registryAuthorityOf(docker)) === authorityFingerprint(authority.certPem)) return { moved: false, unreached: [] };
  const self = (await docker.info()).Swarm?.NodeID as string | undefined;
  const nodes = ((await docker.listNodes()) as unknown as NodeListing[]).filter((n) => n.ID !== self);
  const unreached: { node: string; error: string }[] = [];
  for (const node of nodes) {
    const name = node.Description?.Hostname ?? node.ID;
    if (node.Status?.State !== 'ready') {
      unreached.push({ node: name, error: `it is ${node.Status?.State ?? 'unknown'}` });
      continue;
    }
    try {
      const engine = await move.nodeDocker(node.ID);
      const image = (await inspectService(docker, AGENT_SERVICE))?.Spec.TaskTemplate?.ContainerSpec?.Image;
      if (!image) throw new Error('the agent service has no image');
      await trustOnNode(engine, image, move.access.address, authority.certPem);
    } catch (error) {
      unreached.push({ node: name, error: (error as Error).message });
    }
  }
  await ensureRegistry(docker, { ...move.registry, authority, access: move.access });
  trustRegistryAuthority(move.access.address, authority.certPem, move.certsDir);
  return { moved: true, unreached };
}
