import type Docker from 'dockerode';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import type { NodeAccess } from './node-access.js';

/**
 * The Docker host of a node: this server's own (`nodeId` null, as on a single server), or a cluster node's, whose
 * Docker host and loopback Slipway reaches through the node's agent (a pinned database's, a Swarm task's).
 */
export interface NodeHosts {
  runtime(nodeId: string | null): Promise<ContainerRuntime>;
  /** The port Slipway dials on its own loopback for the port the database publishes on its node's. */
  port(nodeId: string | null, hostPort: number): Promise<number>;
}

export function nodeHosts(local: ContainerRuntime, access: NodeAccess, runtimeOf: (docker: Docker) => Promise<ContainerRuntime>): NodeHosts {
  const runtimes = new Map<Docker, Promise<ContainerRuntime>>();
  return {
    async runtime(nodeId) {
      if (nodeId === null) return local;
      const docker = await access.docker(nodeId);
      let runtime = runtimes.get(docker);
      if (!runtime) runtimes.set(docker, (runtime = runtimeOf(docker)));
      return runtime;
    },
    port: async (nodeId, hostPort) => (nodeId === null ? hostPort : access.loopbackPort(nodeId, hostPort)),
  };
}
