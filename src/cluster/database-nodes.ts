import type Docker from 'dockerode';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import type { NodeAccess } from './node-access.js';

/**
 * Where a database service runs: on this server's own engine (`nodeId` null, as on a single server), or on the
 * cluster node it is pinned to, whose engine and loopback Slipway reaches through the node's agent.
 */
export interface DatabaseNodes {
  runtime(nodeId: string | null): Promise<ContainerRuntime>;
  /** The port Slipway dials on its own loopback for the port the database publishes on its node's. */
  port(nodeId: string | null, hostPort: number): Promise<number>;
}

/** The single server's answer: every database is on this server's engine. */
export const thisServerOnly = (runtime: ContainerRuntime): DatabaseNodes => ({
  runtime: async () => runtime,
  port: async (_nodeId, hostPort) => hostPort,
});

export function databaseNodes(local: ContainerRuntime, access: NodeAccess, runtimeOf: (docker: Docker) => Promise<ContainerRuntime>): DatabaseNodes {
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
