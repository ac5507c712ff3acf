import { deployment } from '../../../commands/deployment/aggregate.js';
import { deploymentSteps } from '../../../commands/deployment/handlers.js';
import { NO_RELEASE, service as serviceAggregate } from '../../../commands/service/aggregate.js';
import { releaseService } from '../../../commands/service/handlers.js';
import { loadAggregate } from '../../../commands/shared/execute.js';
import { everDeployed, listDeploymentLogs, listUnfinishedDeployments, type DeploymentRow } from '../../../projections/deployment-queries.js';
import { keptImageIds } from '../../../projections/release-queries.js';
import { findService, listReleasedServices } from '../../../projections/service-queries.js';
import type { Logger } from '../../logger.js';
import { LABEL } from '../../runtime/container-runtime.js';
import { deploymentContext, deploymentLog } from './deployment-context.js';
import { discardInterruptedBuilds } from './interrupted-builds.js';
import { recordMissingReleases, releaseDraftInLog } from './release-repair.js';
import { recordGoneLive } from './runs/release-run.js';
import type { RunDeps } from './toolkit/run-deps.js';
import { stopStoppedRelease, stoppedOnRequest } from './toolkit/service-stop.js';

/**
 * After a crash, nothing is left `running`: a deployment that had already switched its route is finished,
 * any other is failed and what it created is removed. A release that went live without reaching the service's
 * history is recorded from its deployment's success. Containers and images no current release owns go too,
 * and a current container the engine republished on another port gets its route moved.
 */
export async function recover(deps: RunDeps, logger: Logger) {
  const { db, runtime } = deps;
  // Nothing runs yet: every build directory (and git process working in one) is an interrupted run's.
  const stopped = discardInterruptedBuilds(deps.settings.workDir);
  if (stopped.length > 0) logger.warn('stopped processes an interrupted build left running', { pids: stopped });
  // An installation that has never deployed has nothing in Docker to reconcile.
  if (!(await everDeployed(db))) return;
  const running = (await listUnfinishedDeployments(db)).filter((d) => d.status === 'running');
  let engine: string | null = null;
  await runtime.ping().catch((error: unknown) => (engine = String(error)));
  for (const d of running) {
    const reason =
      'Slipway stopped while this deployment was running; ' +
      (engine === null ? 'its build and container were discarded. Deploy again.' : `Docker was unreachable at restart (${engine}). Deploy again.`);
    await closeOrphan(deps, logger, d, { failed: reason, complete: 'Slipway restarted after this deployment had switched its route; it is complete' }, engine === null);
  }
  // Before the sweep: the image of a release recorded only now is a kept release's image.
  const recordedNow = await recordMissingReleases(deps, logger);
  if (engine === null) await sweep(deps, logger, recordedNow);
}

/**
 * Ends a `running` deployment that no run in this process drives: complete if its service's release is
 * this deployment, otherwise failed with `reason`. Both are decided on the aggregates, never on read models
 * that may lag behind them; what it created is removed (when the engine can be reached) only once this call
 * has recorded the failure, so a deployment that in fact went live or ended meanwhile keeps its containers.
 */
export async function closeOrphan(deps: RunDeps, logger: Logger, d: DeploymentRow, why: { failed: string; complete: string }, removeLeftovers = true) {
  const { db, runtime } = deps;
  const cmd = await deploymentContext(deps.cmd, d.id);
  const { request, status } = (await loadAggregate(cmd, deployment, d.id)).state;
  if (status !== 'running') return;
  const service = (await loadAggregate(cmd, serviceAggregate, d.service_id)).state;
  const release = service.release;
  const last = (await listDeploymentLogs(db, d.id)).at(-1)?.id ?? 0;
  const log = deploymentLog(logger, cmd, d.id, last + 1);
  if (release?.deploymentId === d.id) {
    if (release.containerName) await runtime.keepRunning(release.containerName).catch(() => undefined);
    log.system(why.complete);
    await log.flush();
    // The release it switched to, as its container's start recorded it (the start-up repair records it if this cannot).
    const draft = await releaseDraftInLog(cmd, d.id);
    const ended = await deploymentSteps.succeed(cmd, d.id, { release: draft });
    if (draft && ended.events[0]?.type === 'DeploymentSucceeded') await recordGoneLive(cmd, d.service_id, d.id, draft).catch(() => undefined);
    return;
  }
  log.system(why.failed);
  await log.flush();
  const ended = await deploymentSteps.fail(cmd, d.id, why.failed);
  if (ended.events.length === 0 || !removeLeftovers) return;
  try {
    for (const c of await runtime.list({ [LABEL.deployment]: d.id })) await runtime.remove(c.name, 1);
    for (const image of await runtime.listImages({ [LABEL.deployment]: d.id })) for (const tag of image.tags) await runtime.removeImage(tag);
    // An interrupted move's new container (on the project's network, under the service's name) and volume on
    // the node it was moving to: the service stays where it was, on its data there.
    const movedTo = request.kind === 'move' ? request.toNodeId : null;
    if (movedTo && movedTo !== service.service?.nodeId && deps.nodes) {
      const there = await deps.nodes.runtime(movedTo);
      for (const c of await there.list({ [LABEL.deployment]: d.id })) await there.remove(c.name, 1);
      await there.removeVolumes({ [LABEL.service]: d.service_id });
    }
  } catch (error) {
    // The deployment is ended either way; the start-up sweep removes what is left.
    logger.warn('could not remove what an ended deployment left', { deployment: d.id, error: String(error) });
  }
}

async function sweep(deps: RunDeps, logger: Logger, alsoKept: ReadonlySet<string>) {
  const { db, runtime, cmd } = deps;
  const owned = await runtime.list({});
  const services = new Map<string, Awaited<ReturnType<typeof findService>>>();
  const serviceOf = async (id: string) => {
    if (!services.has(id)) services.set(id, await findService(db, id));
    return services.get(id)!;
  };
  for (const c of owned) {
    // A job run's container is the job runner's: it reconciles it against the run (see processes/job-run/).
    if (c.labels[LABEL.jobRun]) continue;
    const service = await serviceOf(c.labels[LABEL.service] ?? '');
    if (!service || service.current_deployment_id !== c.labels[LABEL.deployment]) {
      logger.info('removing a container no release owns', { container: c.name });
      await runtime.remove(c.name, 1);
    }
  }
  const kept = await keptImageIds(db);
  for (const image of await runtime.listImages({})) {
    const service = await serviceOf(image.labels[LABEL.service] ?? '');
    // Images of kept releases stay: a rollback runs them without a build.
    if (!service || (service.current_deployment_id !== image.labels[LABEL.deployment] && !kept.has(image.id) && !alsoKept.has(image.id))) {
      for (const tag of image.tags) await runtime.removeImage(tag);
    }
  }
  // The engine may have republished a restarted container on another loopback port.
  for (const service of await listReleasedServices(db)) {
    // A database pinned to a cluster node runs there; a node that does not answer now is left as it is.
    const engine = service.node_id === null ? runtime : await deps.nodes?.runtime(service.node_id).catch(() => null);
    if (!engine) {
      logger.warn('the node of a service did not answer: its container is not checked', { service: service.id, node: service.node_id });
      continue;
    }
    if (engine !== runtime) {
      // An interrupted move's copy reader may still run on the volume the current container is started on below.
      for (const c of await engine.list({ [LABEL.service]: service.id })) {
        if (c.labels[LABEL.deployment] === service.current_deployment_id) continue;
        logger.info('removing a container no release owns', { container: c.name, node: service.node_id });
        await engine.remove(c.name, 1);
      }
    }
    const state = await engine.inspect(service.current_container!, service.runtime_mode === 'worker' ? null : service.internal_port);
    if (!state) {
      logger.warn('the current container of a service is gone', { service: service.id, container: service.current_container });
      await releaseService(cmd, service.id, NO_RELEASE);
    } else if (stoppedOnRequest(service)) {
      if (state.running) await stopStoppedRelease(deps, service.id);
    } else if (!state.running && state.exitCode !== null && state.restarts === 0) {
      // Stopped by a database redeploy that was cut short: it is still the release, so it runs again.
      logger.info('starting the stopped current container of a service', { service: service.id, container: service.current_container });
      await engine.start(service.current_container!);
    } else if (state.hostPort !== service.upstream_port) {
      await releaseService(cmd, service.id, {
        deploymentId: service.current_deployment_id,
        containerName: service.current_container,
        upstreamPort: state.hostPort,
        buildMethod: service.detected_build_method as 'dockerfile' | null,
      });
    }
  }
}
