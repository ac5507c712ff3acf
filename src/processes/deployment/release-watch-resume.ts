import { deployment } from '../../../commands/deployment/aggregate.js';
import { parseDeploymentEvent } from '../../../commands/deployment/events.js';
import { streamOf } from '../../../commands/shared/aggregate.js';
import { loadAggregate } from '../../../commands/shared/execute.js';
import { loadReleases } from '../../../commands/release/handlers.js';
import { listReleasedServices, listSwarmReleasedServices, type ServiceRow } from '../../../projections/service-queries.js';
import { swarmReleaseName, swarmServiceOf } from '../../cluster/swarm-release-name.js';
import type { ReleaseWatch } from './toolkit/run-outcome.js';
import type { RunDeps } from './toolkit/run-deps.js';
import { resourcesOfRun } from './toolkit/service-resources.js';

type ResumeDeps = Pick<RunDeps, 'cmd' | 'db' | 'defaultResources'>;

/**
 * The release watches a restart cut short, of releases that run as containers of Slipway's engine: each service's
 * current release whose success recorded a watch that has not ended yet (and that no rollback or failed watch has
 * ended since). The release to put back is the one before it in the service's history, if its image is kept.
 */
export async function watchesToResume(deps: ResumeDeps, now = Date.now()): Promise<ReleaseWatch[]> {
  const watches: ReleaseWatch[] = [];
  for (const row of await listReleasedServices(deps.db)) {
    if (row.kind === 'database' || !row.current_container) continue;
    const watch = await unfinishedWatchOf(deps, row, now);
    if (watch) watches.push({ ...watch, containerName: row.current_container });
  }
  return watches;
}

/**
 * The same for releases that run as Swarm services, by the same rule: watched through their tasks on the cluster's
 * manager. Apart from the single server's: `cluster` answers only once the registry's move at start is done, and a
 * manager that does not answer costs only these.
 */
export async function swarmWatchesToResume(deps: ResumeDeps & Required<Pick<RunDeps, 'cluster'>>, now = Date.now()): Promise<ReleaseWatch[]> {
  const pending: { service: string; watch: Omit<ReleaseWatch, 'containerName'> }[] = [];
  for (const row of await listSwarmReleasedServices(deps.db)) {
    const service = swarmServiceOf(row.current_container);
    const watch = service ? await unfinishedWatchOf(deps, row, now) : null;
    if (service && watch) pending.push({ service, watch });
  }
  if (pending.length === 0) return [];
  const target = await deps.cluster();
  if (!target) return [];
  return pending.map(({ service, watch }) => ({ ...watch, containerName: swarmReleaseName(service), swarm: { docker: target.docker, service } }));
}

/** The watch of a service's current release whose recorded end is after `now`, or null. */
async function unfinishedWatchOf(deps: ResumeDeps, row: ServiceRow, now: number): Promise<Omit<ReleaseWatch, 'containerName'> | null> {
  const deploymentId = row.current_deployment_id;
  if (!deploymentId) return null;
  const { state } = await loadAggregate(deps.cmd, deployment, deploymentId);
  if (state.status !== 'succeeded' || state.watchFailed) return null;
  const events = await deps.cmd.store.readStream(streamOf(deployment.category, deploymentId));
  const succeeded = events.map((e) => parseDeploymentEvent(e)).find((e) => e?.type === 'DeploymentSucceeded');
  const until = succeeded?.type === 'DeploymentSucceeded' && succeeded.data.watchUntil ? Date.parse(succeeded.data.watchUntil) : NaN;
  if (!(until > now)) return null;
  const { releases } = await loadReleases(deps.cmd, row.id);
  const current = releases.find((r) => r.deploymentId === deploymentId);
  const before = current ? releases.filter((r) => r.version < current.version).at(-1) : undefined;
  return {
    deploymentId,
    serviceId: row.id,
    previous: before?.available ? before : null,
    row,
    resources: await resourcesOfRun(row.resources, deps.defaultResources),
    until,
  };
}
