import { deploymentSteps } from '../../../../commands/deployment/handlers.js';
import { effectiveHealthCheck, fromHealthCheckColumn, type HealthCheck } from '../../../../commands/service/health-check.js';
import { service as serviceAggregate } from '../../../../commands/service/aggregate.js';
import { releaseService } from '../../../../commands/service/handlers.js';
import { loadAggregate } from '../../../../commands/shared/execute.js';
import type { ServiceRow } from '../../../../projections/service-queries.js';
import { connectRouterToOverlays, ensureRouter, swarmServiceName } from '../../../cluster/cluster-router.js';
import { pushImage, registryAuth, releaseRepository } from '../../../cluster/registry.js';
import type { ClusterTarget } from '../../../cluster/cluster-target.js';
import { swarmReleaseName } from '../../../cluster/swarm-release-name.js';
import { swarmServiceSpec } from '../../../cluster/swarm-spec.js';
import { createOrUpdateService, ensureOverlay, ensureProbeConfig, waitForRollout } from '../../../cluster/swarm-updates.js';
import { LABEL } from '../../../runtime/container-runtime.js';
import type { DeploymentLog } from '../toolkit/deployment-log.js';
import { DeployFailure, step } from '../toolkit/run-step.js';
import type { Prepared } from '../toolkit/prepared.js';
import type { RunDeps } from '../toolkit/run-deps.js';
import { overlayOf } from '../toolkit/run-names.js';
import type { WentLive } from '../toolkit/run-outcome.js';
import { recorded } from '../../recorded.js';
import { pruneRegistryOf } from './registry-pruning.js';
import { pruneReleases, releaseBefore, releaseDraftOf, watchUntilOf, wentLive, type RunPlan } from './release-run.js';
import { resourcesOfRun } from '../toolkit/service-resources.js';
import { describeAnswer, waitForRoute, type RouteCheck } from './swarm-route-check.js';

const PROBE_PATH = '/run/slipway-probe';
/** The route's end-to-end check after the switch: the router holds one request up to 15 s while it finds no task. */
const ROUTE_WAIT = { timeoutMs: 30_000, attemptMs: 5_000, retryMs: 250 };

/**
 * Cluster mode: the release runs as a Swarm service of `replicas` tasks, updated start-first one task at a
 * time; a task joins the router's DNS only once its health check passes, and Swarm rolls an update back
 * itself when a new task fails. The image reaches every node through the registry, by digest.
 */
export async function runOnSwarm(
  deps: RunDeps,
  target: ClusterTarget,
  id: string,
  p: Prepared,
  plan: RunPlan,
  log: DeploymentLog,
  signal: AbortSignal,
  /** A deployment of new code or config (not a rollback or restart): its first seconds are watched. */
  watched: boolean,
): Promise<{ live: WentLive } | { rolledBack: string }> {
  const { row } = p;
  const { docker } = target;
  const name = swarmServiceName(row.id);
  const timeouts = deps.settings.timeouts;

  log.system(`Pushing the image to the cluster's registry ${target.registry.address}`);
  const image = await step('pushing the image', timeouts.pullMs, signal, () =>
    target.registryLock.push(() => pushImage(docker, plan.image, releaseRepository(row.id), id, target.registry)),
  );
  log.system(`Pushed ${image}`);

  const network = overlayOf(row.project_id);
  await step('preparing the network', 30_000, signal, async () => {
    await ensureOverlay(docker, network, { [LABEL.project]: row.project_id });
    if (plan.web) {
      await ensureRouter(docker, target.router);
      await connectRouterToOverlays(docker);
    }
  });
  const check = healthCheckOf(row, plan);
  if (check && check.type !== 'command' && !target.probe) {
    throw new DeployFailure('the health probe for Swarm tasks was not built (it needs musl-gcc: apt-get install musl-tools, then npm run build)');
  }
  const probe = check && check.type !== 'command' && target.probe ? { path: PROBE_PATH, ...(await ensureProbeConfig(docker, target.probe)) } : undefined;
  const resources = await resourcesOfRun(plan.resources, deps.defaultResources);
  const replicas = row.replicas ?? 1;
  const { ApiVersion: engineApiVersion } = await step('asking the manager for its engine version', 30_000, signal, () => docker.version());
  const spec = swarmServiceSpec({
    name,
    image,
    env: plan.env,
    labels: { [LABEL.managed]: 'true', [LABEL.project]: row.project_id, [LABEL.service]: row.id, [LABEL.deployment]: id },
    replicas,
    nodeLabels: row.node_labels ?? {},
    network,
    aliases: [row.slug],
    healthCheck: check,
    internalPort: plan.internalPort,
    limits: resources.limits,
    stopGraceSeconds: timeouts.stopGraceSeconds,
    engineApiVersion,
    ...(probe ? { probe } : {}),
  });
  await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentContainerStarted', data: { containerName: swarmReleaseName(name) } });
  log.system(`Updating Swarm service ${name}: ${replicas} task${replicas === 1 ? '' : 's'}, start-first, one at a time`);
  const { previousUpdate } = await createOrUpdateService(docker, spec, registryAuth(target.registry));
  // Each task gets the single server's time to start; they start one after another.
  const outcome = await step('rolling out', (timeouts.startMs + 15_000) * replicas, signal, () =>
    waitForRollout(docker, name, { previousUpdate, timeoutMs: (timeouts.startMs + 10_000) * replicas, onProgress: (line) => log.system(line) }),
  );
  if (outcome.outcome === 'rolled_back') {
    log.system(`Swarm rolled the update back: ${outcome.reason}`);
    await log.flush();
    await recorded(() => deploymentSteps.rolledBackBySwarm(deps.cmd, id, outcome.reason));
    return { rolledBack: outcome.reason };
  }
  if (outcome.outcome === 'failed') throw new DeployFailure(outcome.reason);

  const previous = (await loadAggregate(deps.cmd, serviceAggregate, row.id)).state.release;
  const release = await releaseService(deps.cmd, row.id, {
    deploymentId: id,
    containerName: swarmReleaseName(name),
    upstreamPort: plan.web ? target.router.bind.port : null,
    buildMethod: plan.buildMethod === 'image' ? null : plan.buildMethod,
  });
  if (plan.web && deps.settings.proxyEnabled) {
    const proxy = await deps.proxy.sync(release.position);
    if (!proxy.ok) throw new DeployFailure(`the proxy did not take the new route: ${proxy.detail}`);
    await checkRoute({ ...ROUTE_WAIT, port: row.host_port, path: check?.type === 'http' ? check.path : '/' }, name, log, signal);
  }
  log.system(`Deployment succeeded: ${replicas} task${replicas === 1 ? '' : 's'} of ${name} run the new release`);
  await log.flush();
  const draft = await releaseDraftOf(deps, p, plan);
  const watchUntil = await watchUntilOf(deps.cmd, row.id, watched);
  const ended = await recorded(() => deploymentSteps.succeed(deps.cmd, id, { release: draft, watchUntil }));
  if (ended.events[0]?.type !== 'DeploymentSucceeded') throw new DeployFailure('aborted by request');
  const live = await wentLive(deps, id, row.id, ended.events, log);
  const before = await releaseBefore(deps, row.id, previous?.deploymentId ?? null).catch(() => null);
  const ranAs: ServiceRow = { ...row, internal_port: plan.internalPort, runtime_mode: plan.web ? row.runtime_mode : 'worker', health_check: plan.healthCheck };
  return {
    live: {
      // Swarm replaced the tasks itself; the images of releases no longer kept go as on a single server, and
      // from the registry with those of deployments that ended without a release.
      drainAndPrune: async () => {
        await pruneReleases(deps, row.id, log);
        const gone = await pruneRegistryOf(deps, target, row.id);
        if (gone.length > 0) log.system(`Deleted from the cluster's registry the images no kept release runs (${gone.length} tag${gone.length === 1 ? '' : 's'})`);
      },
      watch:
        watchUntil && live
          ? { deploymentId: id, serviceId: row.id, containerName: swarmReleaseName(name), previous: before, row: ranAs, resources, until: Date.parse(watchUntil), swarm: { docker, service: name } }
          : null,
    },
  };
}

/** Success is recorded only once a request through the host's proxy and the router reaches a task. */
async function checkRoute(check: RouteCheck, name: string, log: DeploymentLog, signal: AbortSignal) {
  const seconds = Math.round(check.timeoutMs / 1000);
  log.system(`Waiting for the route to answer: GET ${check.path} on port ${check.port} through the proxy and the cluster's router to a task of ${name} (up to ${seconds} s)`);
  const routed = await step('checking the route', check.timeoutMs + 5_000, signal, (s) => waitForRoute(check, s, (line) => log.system(line)));
  if (!routed.ok) {
    throw new DeployFailure(`the service's route did not answer through the proxy within ${seconds} s (last: ${describeAnswer(routed.last)}), although Swarm runs its tasks: see slipway-cluster-router's log (docker logs slipway-cluster-router)`);
  }
  log.system(`The route answers (${describeAnswer(routed.answer)} after ${routed.ms} ms)`);
}

/** The check a task runs: the release's own, or its kind's default; a worker without one is healthy when running. */
function healthCheckOf(row: ServiceRow, plan: RunPlan): HealthCheck | null {
  const { check } = effectiveHealthCheck({ kind: row.kind, runtimeMode: plan.web ? row.runtime_mode : 'worker', healthCheck: fromHealthCheckColumn(plan.healthCheck) });
  return check && check.type !== 'engine' ? check : null;
}
