import { LABEL, type ContainerRuntime, type NetworkAddresses } from '../../../runtime/container-runtime.js';
import { ensureOverlay } from '../../../cluster/swarm-updates.js';
import type { DeploymentLog } from '../toolkit/deployment-log.js';
import { DeployFailure, step } from '../toolkit/run-step.js';
import { ensureImage } from '../toolkit/ensure-image.js';
import { networkOf } from '../toolkit/run-names.js';
import type { RunDeps } from '../toolkit/run-deps.js';
import { overlayOf } from '../toolkit/run-names.js';

/** Where a database service's container runs: an engine, the network it joins there, the port Slipway dials. */
export interface DatabasePlace {
  /** Null: this server's own engine (a single server, or the manager in a cluster). */
  nodeId: string | null;
  runtime: ContainerRuntime;
  /** The deployment's dependencies with this place's engine. */
  deps: RunDeps;
  network: string;
  /** Makes the network when missing and gives its ranges (a Postgres with TLS lets them in without it). */
  prepareNetwork(): Promise<NetworkAddresses[]>;
  /** Where Slipway dials the port the database publishes on its node's loopback (`hostPort`). */
  port(hostPort: number): Promise<number>;
}

/**
 * On a single server, the project's bridge network on this engine. In a cluster, the project's overlay, so
 * that its Swarm tasks reach the database by name wherever either runs; a pinned database's engine is its
 * node's, reached through the node's agent.
 */
export async function placeOf(deps: RunDeps, projectId: string, nodeId: string | null, signal: AbortSignal): Promise<DatabasePlace> {
  const cluster = await deps.cluster?.();
  if (nodeId !== null && (!cluster || !deps.nodes)) throw new DeployFailure(`the service is on cluster node ${nodeId}, but this installation is not a cluster`);
  // Its agent may still be starting (the first database placed on a node starts them): up to a minute and a half.
  const runtime = nodeId === null ? deps.runtime : await step(`reaching node ${nodeId}`, 90_000, signal, () => deps.nodes!.runtime(nodeId));
  const labels = { [LABEL.project]: projectId };
  const network = cluster ? overlayOf(projectId) : networkOf(projectId);
  return {
    nodeId,
    runtime,
    deps: { ...deps, runtime },
    network,
    async prepareNetwork() {
      if (!cluster) {
        await runtime.ensureNetwork(network, labels);
        return runtime.networkAddresses(network);
      }
      // Swarm allocates the overlay on the manager; a node joins it when a container attaches to it there.
      await ensureOverlay(cluster.docker, network, labels);
      return deps.runtime.networkAddresses(network);
    },
    port: (hostPort) => (nodeId === null || !deps.nodes ? Promise.resolve(hostPort) : deps.nodes.port(nodeId, hostPort)),
  };
}

/**
 * The image on the place's engine: there already; else copied from `source` (the engine the database ran on,
 * or this server's), so a node runs the very image, by id, without a registry; else pulled there.
 */
export async function provideImage(place: DatabasePlace, source: ContainerRuntime, reference: string, log: DeploymentLog, signal: AbortSignal) {
  if (place.nodeId === null || (await place.runtime.imageExists(reference))) return ensureImage(place.deps, reference, log, signal);
  if (await source.imageExists(reference)) {
    log.system(`Copying image ${reference} to node ${place.nodeId}`);
    await step(`copying the image to node ${place.nodeId}`, place.deps.settings.timeouts.pullMs, signal, async (s) => {
      const archive = await source.exportImage(reference);
      try {
        await place.runtime.importImage(archive, s);
      } finally {
        archive.destroy();
      }
    });
    return;
  }
  await ensureImage(place.deps, reference, log, signal);
}
