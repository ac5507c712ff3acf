import type { SqlClient } from '../db/sql-client.js';
import { findCluster } from '../../projections/cluster-queries.js';
import { agentCredentials } from '../cluster/agent-credentials.js';
import { managerHost, type ManagerHost } from '../cluster/manager-host.js';
import { clusterTargets, type ClusterTarget } from '../cluster/cluster-target.js';
import { NodePrivilegeCheck } from '../cluster/node-privilege-check.js';
import { NodeAccess } from '../cluster/node-access.js';
import { nodeHosts, type NodeHosts } from '../cluster/node-hosts.js';
import { registryAuthority } from '../cluster/registry-authority.js';
import { moveRegistryToItsAuthority } from '../cluster/registry-trust.js';
import type { Config } from '../config.js';
import type { PemKeyPair } from '../engines/tls-authority.js';
import type { Logger } from '../logger.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { withDeferredRequires } from '../runtime/deferred-requires.js';
import { lazyRuntime } from '../runtime/lazy-runtime.js';
import type { CommandContexts } from './command-contexts.js';

export interface DockerHostsDeps {
  config: Config;
  log: Logger;
  db: SqlClient;
  commandContext: CommandContexts;
  instance: string;
}

/** The Docker hosts services run on: this server's, and in cluster mode the Swarm and its nodes. */
export interface DockerHosts {
  runtime: ContainerRuntime;
  /** This server's Docker as a Swarm manager. */
  managerHost: ManagerHost;
  /** The Docker host database services run on: this server's, or (cluster mode) the node each is pinned to. */
  nodes: NodeHosts;
  /** Cluster mode: whether each node's daemon sets no-new-privileges by default, as last asked. */
  nodePrivileges: NodePrivilegeCheck;
  /** The cluster as runs use it: waits for the registry's move to its own authority (moveRegistry). */
  cluster(): Promise<ClusterTarget | null>;
  registryAuthority(): Promise<PemKeyPair>;
  /** In the background: a registry still on the installation's CA gets its own (registry-trust.ts). */
  moveRegistry(): void;
  close(): Promise<void>;
}

export function startDockerHosts({ config, log, db, commandContext, instance }: DockerHostsDeps): DockerHosts {
  const dockerRuntime = async () => (await withDeferredRequires(() => import('../runtime/docker-runtime.js'))).createDockerRuntime;
  const runtime = lazyRuntime(async () => (await dockerRuntime())({ ...config.docker, instance }));
  const engine = managerHost(config.docker.socketPath);
  let registryCa: Promise<PemKeyPair> | null = null;
  const registryCaOf = () => (registryCa ??= registryAuthority(config.dataDir).catch((error: unknown) => {
    registryCa = null;
    throw error;
  }));
  const clusterAsIs = clusterTargets(db, commandContext('system:deployer'), engine, config.cluster, async () => (await registryCaOf()).certPem);
  // Pushes and pulls wait for the registry's move to its own authority at start (moveRegistry); the move itself,
  // and the agents it reaches the nodes through, do not.
  let registryMoved: Promise<void> = Promise.resolve();
  let credentials: ReturnType<typeof agentCredentials> | null = null;
  const nodeAccess = new NodeAccess({
    async manager() {
      const target = await clusterAsIs();
      if (!target) throw new Error('this installation is not a cluster');
      return target;
    },
    credentials: () => (credentials ??= agentCredentials(config.dataDir)),
    settings: config.cluster.agent,
    readyTimeoutMs: 60_000,
  });
  const nodes = nodeHosts(runtime, nodeAccess, async (docker) => (await dockerRuntime())({ ...config.docker, instance, docker }));
  const nodePrivileges = new NodePrivilegeCheck({
    nodeDocker: (nodeId) => nodeAccess.docker(nodeId),
    managerApiVersion: async () => (await (await engine.docker()).version()).ApiVersion,
    log,
  });

  async function moveRegistry(): Promise<void> {
    try {
      const row = await findCluster(db);
      const target = row ? await clusterAsIs() : null;
      if (!row || !target) return;
      const result = await moveRegistryToItsAuthority({
        docker: target.docker,
        access: target.registry,
        authority: await registryCaOf(),
        registry: { image: config.cluster.registryImage, advertiseAddress: row.advertise_address, port: config.cluster.registryPort },
        certsDir: config.cluster.certsDir,
        nodeDocker: (nodeId) => nodeAccess.docker(nodeId),
      });
      if (result.moved) log.info('the cluster registry’s certificate is now from its own authority; every node reached trusts only that one', { registry: target.registry.address });
      for (const { node, error } of result.unreached) {
        log.warn(`node ${node} still trusts the registry’s old CA: write registryCaPem of POST /api/cluster/nodes to /etc/docker/certs.d/${target.registry.address}/ca.crt there`, { error });
      }
    } catch (error) {
      // The cluster may be unreachable now; the single server's services still start.
      log.warn('the cluster registry could not be checked at start', { error: String(error) });
    }
  }

  return {
    runtime,
    managerHost: engine,
    nodes,
    nodePrivileges,
    async cluster() {
      await registryMoved;
      return clusterAsIs();
    },
    registryAuthority: registryCaOf,
    moveRegistry() {
      registryMoved = moveRegistry();
    },
    async close() {
      await nodePrivileges.idle();
      await nodeAccess.close();
    },
  };
}
