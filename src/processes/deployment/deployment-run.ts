import { deployment } from '../../../commands/deployment/aggregate.js';
import { deploymentSteps } from '../../../commands/deployment/handlers.js';
import { loadAggregate } from '../../../commands/shared/execute.js';
import { createRedactor } from '../../secrets/redactor.js';
import { message } from '../error-message.js';
import { recorded } from '../recorded.js';
import { deployDatabase } from './runs/database-run.js';
import { runContainer } from './runs/container-run.js';
import { resolveImage } from './runs/image-resolution.js';
import { runReleaseCommand } from './runs/release-command.js';
import { planFromRelease, type RunPlan } from './runs/release-run.js';
import { buildFromSource } from './runs/source-build.js';
import { runOnSwarm } from './runs/swarm-run.js';
import type { DeploymentLog } from './toolkit/deployment-log.js';
import { prepare, type Prepared } from './toolkit/prepared.js';
import type { RunDeps } from './toolkit/run-deps.js';
import { RunLeftovers } from './toolkit/run-leftovers.js';
import type { WentLive } from './toolkit/run-outcome.js';
import { DeployFailure } from './toolkit/run-step.js';

/** How a fresh build or pull runs: with today's variables and settings. */
const todaysPlan = ({ row, env }: Prepared) => ({
  env,
  internalPort: row.internal_port,
  web: row.runtime_mode !== 'worker',
  resources: row.resources,
  healthCheck: row.health_check,
  config: null,
});

/**
 * One deployment from start to end: build (or pull), run, wait until ready, switch the route. Every
 * failure, abort or timeout removes what this run created and is recorded. On success it returns the
 * retirement of the previous containers, for the caller to run once the service is free again.
 *
 * It only dispatches: a database runs as `deployDatabase`; a web or worker release runs what its plan
 * names (a kept release, a resolved image, or a fresh build) as a Swarm service in a cluster, else as a
 * container on this server.
 */
export async function runDeployment(
  deps: RunDeps,
  id: string,
  serviceId: string,
  log: DeploymentLog,
  signal: AbortSignal,
): Promise<WentLive | null> {
  const started = await deploymentSteps.start(deps.cmd, id);
  if (started.events.length === 0) return null;
  log.system(`Deployment ${id} started`);
  const leftovers = new RunLeftovers();
  try {
    // Independent reads, side by side. The runtime bounds a ping with its own call deadline.
    const [p, request] = await Promise.all([
      prepare(deps, serviceId),
      loadAggregate(deps.cmd, deployment, id).then((d) => d.state.request),
      deps.runtime.ping().catch((error: unknown) => {
        throw new DeployFailure(`Docker engine unreachable: ${message(error)}`);
      }),
    ]);
    log.setRedactor(createRedactor(p.secrets));
    const { row } = p;
    if (row.kind === 'database') {
      await deployDatabase(deps, id, p, log, signal, request);
      return null;
    }
    let plan: RunPlan;
    if (request.kind !== 'deploy') {
      plan = await planFromRelease(deps, id, request, p, log);
    } else if (row.kind === 'image') {
      const resolved = await resolveImage(deps, row.docker_image!, row.project_id, log, signal);
      await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentImageBuilt', data: { imageTag: row.docker_image!, buildMethod: 'image', ...resolved } });
      // By id: the release runs what was resolved now, whatever the tag points at later.
      plan = { ...todaysPlan(p), image: resolved.imageId, imageRef: row.docker_image!, buildMethod: 'image', commitSha: null, commitMessage: null };
    } else {
      const built = await buildFromSource(deps, id, p, request, log, signal);
      leftovers.image = built.tag;
      const imageId = (await deps.runtime.imageInfo(built.tag))?.id ?? null;
      await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentImageBuilt', data: { imageTag: built.tag, buildMethod: built.method, imageId, digest: null } });
      log.system(`Built image ${built.tag}`);
      plan = { ...todaysPlan(p), image: built.tag, imageRef: built.tag, buildMethod: built.method, commitSha: built.commitSha, commitMessage: built.commitMessage };
    }
    signal.throwIfAborted();
    // Before anything of the new release starts: a failing release command leaves the previous one serving.
    await runReleaseCommand(deps, id, p, plan, request, log, signal);
    signal.throwIfAborted();

    const cluster = await deps.cluster?.();
    if (cluster) {
      const result = await runOnSwarm(deps, cluster, id, p, plan, log, signal, request.kind === 'deploy');
      leftovers.image = null;
      return 'live' in result ? result.live : null;
    }
    return await runContainer(deps, id, p, plan, request, log, signal, leftovers);
  } catch (error) {
    const reason = signal.aborted ? String(signal.reason ?? 'aborted') : error instanceof DeployFailure ? error.message : `unexpected error: ${message(error)}`;
    log.system(`Deployment ${signal.aborted ? 'aborted' : 'failed'}: ${reason}`);
    await leftovers.undo(deps, serviceId);
    await log.flush();
    await recorded(() => (signal.aborted ? deploymentSteps.markAborted(deps.cmd, id, reason) : deploymentSteps.fail(deps.cmd, id, reason)));
    return null;
  } finally {
    await log.flush();
  }
}
