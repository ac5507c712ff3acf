import { deployment } from '../../../commands/deployment/aggregate.js';
import { parseDeploymentEvent } from '../../../commands/deployment/events.js';
import { streamOf } from '../../../commands/shared/aggregate.js';
import { loadAggregate } from '../../../commands/shared/execute.js';
import { loadReleases } from '../../../commands/release/handlers.js';
import { listReleasedServices } from '../../../projections/service-queries.js';
import type { ReleaseWatch } from './toolkit/run-outcome.js';
import type { RunDeps } from './toolkit/run-deps.js';
import { resourcesOfRun } from './toolkit/service-resources.js';

/**
 * The release watches a restart cut short: each service's current release whose success recorded a watch that
 * has not ended yet (and that no rollback or failed watch has ended since). The release to put back is the one
 * before it in the service's history, if its image is kept. Single-server releases; a Swarm service's watch is
 * not resumed (Swarm's own update monitor and the health monitor remain).
 */
export async function watchesToResume(deps: Pick<RunDeps, 'cmd' | 'db' | 'defaultResources'>, now = Date.now()): Promise<ReleaseWatch[]> {
  const watches: ReleaseWatch[] = [];
  for (const row of await listReleasedServices(deps.db)) {
    if (row.kind === 'database' || !row.current_deployment_id || !row.current_container) continue;
    const deploymentId = row.current_deployment_id;
    const { state } = await loadAggregate(deps.cmd, deployment, deploymentId);
    if (state.status !== 'succeeded' || state.watchFailed) continue;
    const events = await deps.cmd.store.readStream(streamOf(deployment.category, deploymentId));
    const succeeded = events.map((e) => parseDeploymentEvent(e)).find((e) => e?.type === 'DeploymentSucceeded');
    const until = succeeded?.type === 'DeploymentSucceeded' && succeeded.data.watchUntil ? Date.parse(succeeded.data.watchUntil) : NaN;
    if (!(until > now)) continue;
    const { releases } = await loadReleases(deps.cmd, row.id);
    const current = releases.find((r) => r.deploymentId === deploymentId);
    const before = current ? releases.filter((r) => r.version < current.version).at(-1) : undefined;
    watches.push({
      deploymentId,
      serviceId: row.id,
      containerName: row.current_container,
      previous: before?.available ? before : null,
      row,
      resources: await resourcesOfRun(row.resources, deps.defaultResources),
      until,
    });
  }
  return watches;
}
