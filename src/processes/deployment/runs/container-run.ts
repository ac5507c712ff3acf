import { setTimeout as sleep } from 'node:timers/promises';
import { publicUrl } from '../../../proxy/public-url.js';
import type { DeploymentRequest } from '../../../../commands/deployment/aggregate.js';
import { deploymentSteps } from '../../../../commands/deployment/handlers.js';
import { service as serviceAggregate } from '../../../../commands/service/aggregate.js';
import { releaseService } from '../../../../commands/service/handlers.js';
import { loadAggregate } from '../../../../commands/shared/execute.js';
import type { ServiceRow } from '../../../../projections/service-queries.js';
import { LABEL } from '../../../runtime/container-runtime.js';
import { recorded } from '../../recorded.js';
import type { DeploymentLog } from '../toolkit/deployment-log.js';
import type { Prepared } from '../toolkit/prepared.js';
import type { RunDeps } from '../toolkit/run-deps.js';
import type { RunLeftovers } from '../toolkit/run-leftovers.js';
import { containerNameOf, networkOf } from '../toolkit/run-names.js';
import type { WentLive } from '../toolkit/run-outcome.js';
import { DeployFailure, step } from '../toolkit/run-step.js';
import { resourcesOfRun } from '../toolkit/service-resources.js';
import { followStartup, STARTUP_DRAIN_MS } from '../toolkit/startup-output.js';
import { gateOf, passGate } from './readiness.js';
import { pruneReleases, releaseBefore, releaseDraftOf, watchUntilOf, wentLive, type RunPlan } from './release-run.js';

/**
 * A web or worker release on this server: a new container on the project's network, the gate it must pass,
 * then the route switched to it. What it makes goes into `leftovers` until its success is recorded; the
 * previous containers are retired by the caller once the service is free again.
 */
export async function runContainer(
  deps: RunDeps,
  id: string,
  p: Prepared,
  plan: RunPlan,
  request: DeploymentRequest,
  log: DeploymentLog,
  signal: AbortSignal,
  leftovers: RunLeftovers,
): Promise<WentLive> {
  const { row } = p;
  const serviceId = row.id;
  const { web } = plan;
  // The service as this run has it: a kept release may run with its own port and health check.
  const ranAs: ServiceRow = { ...row, internal_port: plan.internalPort, runtime_mode: web ? row.runtime_mode : 'worker', health_check: plan.healthCheck };
  const name = containerNameOf(row.slug, id);
  // The network is made (or found) while the run's event is recorded.
  const network = deps.runtime.ensureNetwork(networkOf(row.project_id), { [LABEL.project]: row.project_id });
  network.catch(() => undefined);
  const resourcesRead = resourcesOfRun(plan.resources, deps.defaultResources);
  resourcesRead.catch(() => undefined);
  const draft = await releaseDraftOf(deps, p, plan);
  await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentContainerStarted', data: { containerName: name, release: draft } });
  leftovers.container = name;
  const resources = await resourcesRead;
  const running = await step('creating the container', deps.settings.timeouts.startMs, signal, async () => {
    await network;
    return deps.runtime.run({
      name,
      image: plan.image,
      env: plan.env,
      labels: { [LABEL.project]: row.project_id, [LABEL.service]: row.id, [LABEL.deployment]: id },
      network: networkOf(row.project_id),
      aliases: [row.slug],
      internalPort: web ? plan.internalPort : null,
      publish: web,
      privileges: 'app',
      limits: resources.limits,
    });
  });
  log.system(`Started container ${name}${web ? `; waiting for it to answer on port ${plan.internalPort}` : ''}`);
  const stopFollowing = followStartup(deps, name, log);
  // Read while the app starts: this run holds the service, so no other release is recorded meanwhile.
  const previousRead = loadAggregate(deps.cmd, serviceAggregate, serviceId);
  previousRead.catch(() => undefined);
  let ready = false;
  try {
    await step('starting the container', deps.settings.timeouts.startMs + 5_000, signal, (s) => passGate(gateOf(deps, ranAs, name, log, resources), s));
    ready = true;
  } finally {
    await stopFollowing(ready || signal.aborted ? 0 : STARTUP_DRAIN_MS);
  }
  log.system(web ? 'The app answers; switching the route to it' : 'The worker is up');

  const previous = (await previousRead).state.release;
  signal.throwIfAborted();
  const restartPolicy = step('setting the restart policy', 10_000, signal, () => deps.runtime.keepRunning(name));
  restartPolicy.catch(() => undefined);
  const routeBuildMethod = plan.buildMethod === 'image' ? null : plan.buildMethod;
  const release = await releaseService(deps.cmd, serviceId, { deploymentId: id, containerName: name, upstreamPort: running.hostPort, buildMethod: routeBuildMethod });
  leftovers.release = { previous };
  if (web && deps.settings.proxyEnabled) {
    const proxy = await deps.proxy.sync(release.position);
    if (!proxy.ok) throw new DeployFailure(`the proxy did not take the new route: ${proxy.detail}`);
  }
  await restartPolicy;
  // Lines go out before the event that ends the deployment, so a stream reader sees them all.
  log.system(`Deployment succeeded${web ? `: ${await addressesOf(deps, row)}` : ''}`);
  await log.flush();
  const watchUntil = await watchUntilOf(deps.cmd, serviceId, request.kind === 'deploy');
  const ended = await recorded(() => deploymentSteps.succeed(deps.cmd, id, { release: draft, watchUntil }));
  if (ended.events[0]?.type !== 'DeploymentSucceeded') throw new DeployFailure('aborted by request');
  leftovers.release = null;
  leftovers.container = null;
  leftovers.image = null;
  const live = await wentLive(deps, id, serviceId, ended.events, log);
  // What to drain is fixed now; draining runs after this deployment, so the next one need not wait.
  const previousRuns = await earlierContainersOf(deps, serviceId, id).catch(() => []);
  const before = await releaseBefore(deps, serviceId, previous?.deploymentId ?? null).catch(() => null);
  return {
    drainAndPrune: async () => {
      await drainPrevious(deps, previousRuns, log);
      await pruneReleases(deps, serviceId, log);
    },
    watch: watchUntil && live ? { deploymentId: id, serviceId, containerName: name, previous: before, row: ranAs, resources, until: Date.parse(watchUntil) } : null,
  };
}

/** Containers of this service's earlier deployments (not its job runs); their images stay while their releases are kept. */
async function earlierContainersOf(deps: RunDeps, serviceId: string, keep: string): Promise<string[]> {
  const containers = (await deps.runtime.list({ [LABEL.service]: serviceId })).filter((c) => c.labels[LABEL.deployment] !== keep && !c.labels[LABEL.jobRun]);
  return containers.map((c) => c.name);
}

/** Gives requests in flight time to finish, then stops the earlier containers. */
async function drainPrevious(deps: RunDeps, containers: string[], log: DeploymentLog) {
  if (containers.length > 0) await sleep(deps.settings.timeouts.drainMs);
  for (const name of containers) {
    log.system(`Draining ${name}`);
    await deps.runtime.remove(name, deps.settings.timeouts.stopGraceSeconds).catch(() => undefined);
  }
  await log.flush();
}

/** Where a web release answers: its domain through the proxy when it has one, and this machine's port. */
async function addressesOf(deps: RunDeps, row: ServiceRow): Promise<string> {
  const local = `http://localhost:${row.host_port}`;
  if (!row.primary_hostname || !deps.settings.proxyEnabled || !deps.publicAddress) return local;
  return `${publicUrl(row.primary_hostname, await deps.publicAddress())} (and ${local} on this machine)`;
}
