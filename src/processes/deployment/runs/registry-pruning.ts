import { loadReleases } from '../../../../commands/release/handlers.js';
import { findDeployment } from '../../../../projections/deployment-queries.js';
import { swarmServiceName } from '../../../cluster/cluster-router.js';
import type { ClusterTarget } from '../../../cluster/cluster-target.js';
import { releaseRepository } from '../../../cluster/registry.js';
import { collectGarbage, deleteManifestsOf } from '../../../cluster/registry-cleanup.js';
import type { RunDeps } from '../toolkit/run-deps.js';

/** Deployments that ended without a release: what they pushed is no release's image. */
const ENDED_WITHOUT_RELEASE = new Set(['failed', 'aborted', 'canceled', 'rolled_back']);

const endpointOf = (target: ClusterTarget) => ({ access: target.registry, caPem: target.registryCa });

/** The digests the Swarm service runs and would roll back to: they stay whatever the releases say. */
async function digestsInUse(target: ClusterTarget, serviceId: string): Promise<Set<string>> {
  const info = await target.docker
    .getService(swarmServiceName(serviceId))
    .inspect()
    .catch((error: { statusCode?: number }) => {
      if (error.statusCode === 404) return null;
      throw error;
    });
  const images = [info?.Spec?.TaskTemplate?.ContainerSpec?.Image, info?.PreviousSpec?.TaskTemplate?.ContainerSpec?.Image] as (string | undefined)[];
  return new Set(images.map((image) => /@(sha256:[0-9a-f]{64})$/.exec(image ?? '')?.[1]).filter((d): d is string => d !== undefined));
}

/**
 * After a Swarm release went live: the registry keeps the images of the releases the service keeps, and
 * drops those of pruned releases and of deployments that ended without one; then its layers are collected.
 */
export async function pruneRegistryOf(deps: Pick<RunDeps, 'cmd' | 'db'>, target: ClusterTarget, serviceId: string): Promise<string[]> {
  const { releases } = await loadReleases(deps.cmd, serviceId);
  const gone = await deleteManifestsOf(
    endpointOf(target),
    releaseRepository(serviceId),
    async (tag) => {
      const release = releases.find((r) => r.deploymentId === tag);
      if (release) return !release.available;
      const deployment = await findDeployment(deps.db, tag);
      return deployment?.service_id === serviceId && ENDED_WITHOUT_RELEASE.has(deployment.status);
    },
    await digestsInUse(target, serviceId),
  );
  if (gone.length > 0) await collectGarbage(target.docker, target.registryLock);
  return gone;
}

/** A deleted service's images leave the registry, once its Swarm service is gone. */
export async function emptyRegistryOf(target: ClusterTarget, serviceId: string): Promise<string[]> {
  const gone = await deleteManifestsOf(endpointOf(target), releaseRepository(serviceId), async () => true);
  if (gone.length > 0) await collectGarbage(target.docker, target.registryLock);
  return gone;
}
