import { removeService, removeOverlay } from '../../cluster/swarm-updates.js';
import { swarmServiceName } from '../../cluster/cluster-router.js';
import { service as serviceAggregate } from '../../../commands/service/aggregate.js';
import { loadAggregate } from '../../../commands/shared/execute.js';
import type { Logger } from '../../logger.js';
import { LABEL } from '../../runtime/container-runtime.js';
import { emptyRegistryOf } from './runs/registry-pruning.js';
import type { RunDeps } from './toolkit/run-deps.js';
import { overlayOf } from './toolkit/run-names.js';

/** Everything a deleted service had: its Swarm service, containers, images and volumes (on its node too), its registry images. */
export async function removeEverythingOf(deps: RunDeps, logger: Logger, serviceId: string): Promise<void> {
  try {
    // First, or Swarm would start again the task containers removed below.
    const cluster = await deps.cluster?.();
    if (cluster) await removeService(cluster.docker, swarmServiceName(serviceId));
    // A database pinned to a node has its container, image and volume there.
    const nodeId = (await loadAggregate(deps.cmd, serviceAggregate, serviceId)).state.service?.nodeId ?? null;
    const engines = [deps.runtime, ...(nodeId && deps.nodes ? [await deps.nodes.runtime(nodeId)] : [])];
    for (const runtime of engines) {
      for (const c of await runtime.list({ [LABEL.service]: serviceId })) await runtime.remove(c.name, deps.settings.timeouts.stopGraceSeconds);
      for (const image of await runtime.listImages({ [LABEL.service]: serviceId })) for (const tag of image.tags) await runtime.removeImage(tag);
      // A deleted database's data goes with it (README: "Deleting a database service").
      const volumes = await runtime.removeVolumes({ [LABEL.service]: serviceId });
      if (volumes.length > 0) logger.info('removed the data volumes of a deleted service', { service: serviceId, volumes, node: runtime === deps.runtime ? null : nodeId });
    }
    const gone = cluster ? await emptyRegistryOf(cluster, serviceId) : [];
    if (gone.length > 0) logger.info('deleted the images of a deleted service from the cluster registry', { service: serviceId, tags: gone.length });
  } catch (error) {
    logger.warn('could not remove the containers of a deleted service', { service: serviceId, error: String(error) });
  }
}

/** A deleted project's network (and overlay, in a cluster), once its services are gone. */
export async function removeNetworkOf(deps: RunDeps, logger: Logger, projectId: string): Promise<void> {
  const networks = await deps.runtime.removeNetworks({ [LABEL.project]: projectId });
  if (networks.length > 0) logger.info('removed the network of a deleted project', { project: projectId, networks });
  const cluster = await deps.cluster?.();
  if (cluster) await removeOverlay(cluster.docker, overlayOf(projectId));
}
