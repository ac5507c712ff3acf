import { service as serviceAggregate } from '../../../../commands/service/aggregate.js';
import type { CommandContext } from '../../../../commands/shared/command-context.js';
import { loadAggregate } from '../../../../commands/shared/execute.js';
import type { ServiceRow } from '../../../../projections/service-queries.js';
import type { ClusterTarget } from '../../../cluster/cluster-target.js';
import { swarmServiceOf } from '../../../cluster/swarm-release-name.js';
import { scaleService } from '../../../cluster/swarm-updates.js';
import type { ContainerRuntime } from '../../../runtime/container-runtime.js';
import type { NodeHosts } from '../../../cluster/node-hosts.js';

export interface StopDeps {
  cmd: CommandContext;
  runtime: ContainerRuntime;
  settings: { timeouts: { stopGraceSeconds: number } };
  cluster?: () => Promise<ClusterTarget | null>;
  nodes?: NodeHosts;
}

/**
 * Stops the container (or Swarm tasks) of a service stopped on request (`ServiceStopped`); the container and its image stay,
 * so a start needs no build. Decided on the aggregate, not on the event alone: an event heard again after the
 * service was started (a replay from the checkpoint) stops nothing.
 */
export async function stopStoppedRelease(deps: StopDeps, serviceId: string): Promise<void> {
  const { state } = await loadAggregate(deps.cmd, serviceAggregate, serviceId);
  const container = state.status === 'live' && state.stopped ? state.release?.containerName : null;
  if (!container) return;
  const swarm = swarmServiceOf(container);
  // A Swarm service is scaled to no task (its spec stays); a start runs its release again at its replicas.
  if (swarm) {
    const cluster = await deps.cluster?.();
    if (cluster) await scaleService(cluster.docker, swarm, 0);
    return;
  }
  const nodeId = state.service?.nodeId ?? null;
  const runtime = nodeId && deps.nodes ? await deps.nodes.runtime(nodeId) : deps.runtime;
  await runtime.stop(container, deps.settings.timeouts.stopGraceSeconds);
}

/** A service stopped on request: its current container must not be started again by a sweep or a failed redeploy. */
export const stoppedOnRequest = (row: Pick<ServiceRow, 'status'>) => row.status === 'stopped';
