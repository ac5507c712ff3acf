import { deployment } from '../../../commands/deployment/aggregate.js';
import { parseDeploymentEvent } from '../../../commands/deployment/events.js';
import { cancelQueuedDeployment, deploymentSteps, queueDeployment } from '../../../commands/deployment/handlers.js';
import { releasePolicyOf } from '../../../commands/service/fields.js';
import { parseProjectEvent } from '../../../commands/project/events.js';
import { parseServiceEvent } from '../../../commands/service/events.js';
import { causedBy, type CommandContext } from '../../../commands/shared/command-context.js';
import { loadAggregate } from '../../../commands/shared/execute.js';
import { NO_RELEASE, service as serviceAggregate } from '../../../commands/service/aggregate.js';
import { releaseService } from '../../../commands/service/handlers.js';
import { everDeployed, listDeploymentLogs, listUnfinishedDeployments, type DeploymentRow } from '../../../projections/deployment-queries.js';
import { keptImageIds } from '../../../projections/release-queries.js';
import { aggregateIdOf } from '../../../projections/stream-id.js';
import { findService, listReleasedServices } from '../../../projections/service-queries.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Logger } from '../../logger.js';
import { LABEL } from '../../runtime/container-runtime.js';
import { DeploymentLog } from './toolkit/deployment-log.js';
import { runDeployment } from './deployment-run.js';
import type { ReleaseWatch } from './toolkit/run-outcome.js';
import type { RunDeps } from './toolkit/run-deps.js';
import { recorded } from '../recorded.js';
import { recordGoneLive } from './runs/release-run.js';
import { recordMissingReleases, releaseDraftInLog } from './release-repair.js';
import { watchRelease } from './release-watch.js';
import { watchesToResume } from './release-watch-resume.js';
import { swarmServiceName } from '../../cluster/cluster-router.js';
import { removeOverlay, removeService } from '../../cluster/swarm-updates.js';
import { emptyRegistryOf } from './runs/registry-pruning.js';
import { queueAcceptedDelivery } from '../../../commands/auto-deploy/accept-delivery.js';
import { acceptedDeliveriesNotQueued } from '../../../projections/auto-deploy-queries.js';
import { watchSwarmRelease } from '../../cluster/swarm-watch.js';
import { discardInterruptedBuilds } from './interrupted-builds.js';
import { stopStoppedRelease, stoppedOnRequest } from './toolkit/service-stop.js';
import { overlayOf } from './toolkit/run-names.js';
import type { Reactor } from '../reactor.js';

export interface DeployerOptions {
  /** Deployments that may run at once across all services. */
  concurrency: number;
  /** How often a new release is looked at during its watch window. */
  watchIntervalMs: number;
}

interface ActiveRun {
  serviceId: string;
  controller: AbortController;
  done: Promise<void>;
}

const ACTOR = 'system:deployer';

/**
 * The process manager that drives deployments. It takes queued deployments from the read model, one per
 * service and at most `concurrency` at once; when several are queued for one service, the newest runs and
 * the older ones end `aborted` as superseded. Abort requests and service deletions stop a run for real.
 * It hears events from its own checkpoint (`handle`), and `reconcile` repairs from state what the log
 * cannot: a queued deployment nobody took, a `running` one with no live run, an abort not acted on.
 */
export class Deployer implements Reactor {
  readonly name = 'deployer';
  private readonly active = new Map<string, ActiveRun>();
  /** The watch of each service's newest release, called off when another deployment of the service starts. */
  private readonly watches = new Map<string, AbortController>();
  private readonly background = new Set<Promise<void>>();
  /** Removals of deleted services' containers under way: a deleted project's network goes once they are done. */
  private readonly removals = new Set<Promise<void>>();
  private pass: Promise<void> = Promise.resolve();
  private pending = false;
  private started = false;
  private stopping = false;

  constructor(
    private readonly deps: RunDeps,
    private readonly options: DeployerOptions,
    private readonly logger: Logger,
  ) {}

  /** Recovers what a crash left (before anything runs), then takes work. */
  async start() {
    await this.recover().catch((error: unknown) => this.logger.warn('deployment recovery incomplete', { error: String(error) }));
    this.started = true;
    await this.resumeWatches().catch((error: unknown) => this.logger.warn('release watches could not be resumed', { error: String(error) }));
    this.kick();
  }

  /** A restart inside a release's watch window resumes the watch until the end recorded with its success. */
  private async resumeWatches() {
    for (const watch of await watchesToResume(this.deps)) {
      const cmd = await this.contextOf(watch.deploymentId);
      const last = (await listDeploymentLogs(this.deps.db, watch.deploymentId)).at(-1)?.id ?? 0;
      const log = this.logOf(cmd, watch.deploymentId, last + 1);
      log.system(`Slipway restarted within the release's watch window; watching it until ${new Date(watch.until).toISOString()}`);
      await log.flush();
      this.inBackground(this.watch(watch, cmd, log));
    }
  }

  /** Stops taking work; runs in progress are stopped and end `aborted` with the reason. */
  async stop() {
    this.stopping = true;
    for (const watch of this.watches.values()) watch.abort();
    for (const run of this.active.values()) run.controller.abort('Slipway was stopped during the deployment');
    await Promise.all([...this.active.values()].map((r) => r.done));
    await Promise.all(this.background);
    await this.pass;
  }

  async handle(batch: readonly RecordedEvent[]) {
    let schedule = false;
    for (const recorded of batch) {
      const deploymentEvent = parseDeploymentEvent(recorded);
      const serviceEvent = deploymentEvent ? null : parseServiceEvent(recorded);
      if (deploymentEvent?.type === 'DeploymentAbortRequested') {
        this.active.get(aggregateIdOf(recorded.streamId))?.controller.abort('aborted by request');
      } else if (serviceEvent?.type === 'ServiceDeleted') {
        const serviceId = aggregateIdOf(recorded.streamId);
        for (const run of this.active.values()) if (run.serviceId === serviceId) run.controller.abort('the service was deleted');
        this.watches.get(serviceId)?.abort();
        const removal = this.removeEverythingOf(serviceId).finally(() => this.removals.delete(removal));
        this.removals.add(removal);
        this.inBackground(removal);
      } else if (serviceEvent?.type === 'ServiceStopped') {
        this.inBackground(stopStoppedRelease(this.deps, aggregateIdOf(recorded.streamId)));
      } else if (!deploymentEvent && !serviceEvent && parseProjectEvent(recorded)?.type === 'ProjectDeleted') {
        // Its services' removals (and aborted runs), started by their ServiceDeleted events before this one, leave the network unused.
        const removals = [...this.removals, ...[...this.active.values()].filter((r) => r.controller.signal.aborted).map((r) => r.done)];
        this.inBackground(Promise.allSettled(removals).then(() => this.removeNetworkOf(aggregateIdOf(recorded.streamId))));
      }
      if (deploymentEvent?.type === 'DeploymentQueued' || deploymentEvent?.type === 'DeploymentAborted' || deploymentEvent?.type === 'DeploymentCanceled') schedule = true;
    }
    if (schedule) this.kick();
  }

  async reconcile() {
    if (!this.started || this.stopping) return;
    await this.queueAcceptedDeliveries();
    this.kick();
    for (const d of await listUnfinishedDeployments(this.deps.db)) {
      const run = this.active.get(d.id);
      if (run && d.abort_requested) run.controller.abort('aborted by request');
      // `running` is recorded by the run itself, which is in `active` from before that append until it has ended.
      if (!run && d.status === 'running' && !this.stopping) {
        await this.closeOrphan(d, {
          failed: 'Slipway lost track of this run (its last step could not be recorded); it was ended. Deploy again.',
          complete: 'Slipway lost track of this run after it had switched its route; it is complete',
        });
      }
    }
  }

  /** A webhook delivery recorded `deployed` whose deployment's append failed still deploys, once. */
  private async queueAcceptedDeliveries() {
    for (const d of await acceptedDeliveriesNotQueued(this.deps.db)) {
      const queued = await queueAcceptedDelivery(this.deps.cmd, d.serviceId, d.deploymentId, d.commitSha).catch((error: unknown) => {
        this.logger.warn('an accepted webhook delivery could not be queued', { serviceId: d.serviceId, deploymentId: d.deploymentId, error: String(error) });
        return null;
      });
      if (queued?.queued) this.logger.info('queued the deployment of an accepted webhook delivery', { serviceId: d.serviceId, deploymentId: d.deploymentId });
    }
  }

  /** Scheduling passes run one after another; a request during a pass causes one more. */
  private kick() {
    if (this.stopping || this.pending || !this.started) return;
    this.pending = true;
    this.pass = this.pass.then(async () => {
      this.pending = false;
      await this.schedule().catch((error: unknown) => this.logger.error('deployment scheduling failed', { error: String(error) }));
    });
  }

  private async schedule() {
    const queued = (await listUnfinishedDeployments(this.deps.db)).filter((d) => d.status === 'queued');
    const byService = new Map<string, DeploymentRow[]>();
    for (const d of queued) byService.set(d.service_id, [...(byService.get(d.service_id) ?? []), d]);
    const busy = new Set([...this.active.values()].map((r) => r.serviceId));
    for (const [serviceId, waiting] of byService) {
      if (busy.has(serviceId) || this.stopping) continue;
      const newest = waiting[waiting.length - 1]!;
      for (const older of waiting.slice(0, -1)) {
        await cancelQueuedDeployment(await this.contextOf(older.id), older.id, `superseded by the newer deployment ${newest.id}`, newest.id);
      }
      if (this.active.size >= this.options.concurrency) continue;
      await this.launch(newest);
    }
  }

  /** What the deployer appends for a deployment is caused by its DeploymentQueued event and shares its correlation id. */
  private async contextOf(deploymentId: string): Promise<CommandContext> {
    const [queued] = await this.deps.cmd.store.readStream(`${deployment.category}-${deploymentId}`, { maxCount: 1 });
    return queued ? causedBy(this.deps.cmd, queued) : { ...this.deps.cmd, correlationId: deploymentId };
  }

  private logOf(cmd: CommandContext, deploymentId: string, next = 1) {
    return new DeploymentLog(cmd.store, deploymentId, (l) => l, { actor: ACTOR, correlationId: cmd.correlationId, causationId: cmd.causationId ?? null }, next, (count, error) =>
      this.logger.error('deployment log lines could not be stored', { deployment: deploymentId, lines: count, error: String(error) }),
    );
  }

  private async launch(row: DeploymentRow) {
    const controller = new AbortController();
    this.watches.get(row.service_id)?.abort();
    const cmd = await this.contextOf(row.id);
    const log = this.logOf(cmd, row.id);
    const done = runDeployment({ ...this.deps, cmd }, row.id, row.service_id, log, controller.signal)
      .then((live) => {
        if (!live) return;
        this.inBackground(live.retire());
        if (live.watch) this.inBackground(this.watch(live.watch, cmd, log));
      })
      .catch((error: unknown) => this.logger.error('deployment run failed', { deployment: row.id, error: String(error) }))
      .finally(() => {
        this.active.delete(row.id);
        this.kick();
      });
    this.active.set(row.id, { serviceId: row.service_id, controller, done });
  }

  /**
   * The first `watchSeconds` of a new release: if it exits, restarts or stops answering, the previous
   * release is put back by a rollback deployment (the bad one ends `rolled_back`), or, with
   * `autoRollback: false` or nothing to go back to, what was seen is recorded on the deployment.
   */
  private async watch(watch: ReleaseWatch, cmd: CommandContext, log: DeploymentLog) {
    const { state } = await loadAggregate(cmd, serviceAggregate, watch.serviceId);
    if (state.status !== 'live' || !state.service) return;
    const policy = releasePolicyOf(state.service);
    if (policy.watchSeconds === 0) return;
    const windowMs = watch.until - Date.now();
    if (windowMs <= 0) return;
    const controller = new AbortController();
    this.watches.set(watch.serviceId, controller);
    try {
      const seen = watch.swarm
        ? await watchSwarmRelease(watch.swarm.docker, watch.swarm.service, windowMs, this.options.watchIntervalMs, controller.signal)
        : await watchRelease(this.deps.runtime, watch, windowMs, this.options.watchIntervalMs, controller.signal);
      if (seen === null || controller.signal.aborted) return;
      const reason = `within ${policy.watchSeconds} s of going live, ${seen}`;
      if (!policy.autoRollback || !watch.previous) {
        log.system(`The release misbehaved: ${reason}. ${watch.previous ? 'Automatic rollback is off for this service' : 'There is no earlier release to roll back to'}; it keeps running.`);
        await log.flush();
        await recorded(() => deploymentSteps.watchFailed(cmd, watch.deploymentId, reason));
        return;
      }
      const rollback = await queueDeployment({ ...cmd, actor: ACTOR }, watch.serviceId, {
        kind: 'rollback',
        trigger: 'auto',
        releaseId: watch.previous.releaseId,
        config: 'release',
      });
      log.system(`The release misbehaved: ${reason}. Rolling back to release v${watch.previous.version} (deployment ${rollback.id})`);
      await log.flush();
      await recorded(() => deploymentSteps.rolledBack(cmd, watch.deploymentId, `${reason} — rolled back to release v${watch.previous!.version}`, rollback.id));
      this.kick();
    } finally {
      if (this.watches.get(watch.serviceId) === controller) this.watches.delete(watch.serviceId);
    }
  }

  /** Work that outlives a run (retiring old containers); stop() waits for it. */
  private inBackground(work: Promise<void>) {
    const tracked = work
      .catch((error: unknown) => this.logger.warn('work after a deployment (retiring, pruning, watching) failed', { error: String(error) }))
      .finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  private async removeEverythingOf(serviceId: string): Promise<void> {
    try {
      // First, or Swarm would start again the task containers removed below.
      const cluster = await this.deps.cluster?.();
      if (cluster) await removeService(cluster.docker, swarmServiceName(serviceId));
      // A database pinned to a node has its container, image and volume there.
      const nodeId = (await loadAggregate(this.deps.cmd, serviceAggregate, serviceId)).state.service?.nodeId ?? null;
      const engines = [this.deps.runtime, ...(nodeId && this.deps.nodes ? [await this.deps.nodes.runtime(nodeId)] : [])];
      for (const runtime of engines) {
        for (const c of await runtime.list({ [LABEL.service]: serviceId })) await runtime.remove(c.name, this.deps.settings.timeouts.stopGraceSeconds);
        for (const image of await runtime.listImages({ [LABEL.service]: serviceId })) for (const tag of image.tags) await runtime.removeImage(tag);
        // A deleted database's data goes with it (README: "Deleting a database service").
        const volumes = await runtime.removeVolumes({ [LABEL.service]: serviceId });
        if (volumes.length > 0) this.logger.info('removed the data volumes of a deleted service', { service: serviceId, volumes, node: runtime === this.deps.runtime ? null : nodeId });
      }
      const gone = cluster ? await emptyRegistryOf(cluster, serviceId) : [];
      if (gone.length > 0) this.logger.info('deleted the images of a deleted service from the cluster registry', { service: serviceId, tags: gone.length });
    } catch (error) {
      this.logger.warn('could not remove the containers of a deleted service', { service: serviceId, error: String(error) });
    }
  }

  private async removeNetworkOf(projectId: string): Promise<void> {
    const networks = await this.deps.runtime.removeNetworks({ [LABEL.project]: projectId });
    if (networks.length > 0) this.logger.info('removed the network of a deleted project', { project: projectId, networks });
    const cluster = await this.deps.cluster?.();
    if (cluster) await removeOverlay(cluster.docker, overlayOf(projectId));
  }

  /**
   * After a crash, nothing is left `running`: a deployment that had already switched its route is finished,
   * any other is failed and what it created is removed. A release that went live without reaching the service's
   * history is recorded from its deployment's success. Containers and images no current release owns go too,
   * and a current container the engine republished on another port gets its route moved.
   */
  private async recover() {
    const { db, runtime } = this.deps;
    // Nothing runs yet: every build directory (and git process working in one) is an interrupted run's.
    const stopped = discardInterruptedBuilds(this.deps.settings.workDir);
    if (stopped.length > 0) this.logger.warn('stopped processes an interrupted build left running', { pids: stopped });
    // An installation that has never deployed has nothing in Docker to reconcile.
    if (!(await everDeployed(db))) return;
    const running = (await listUnfinishedDeployments(db)).filter((d) => d.status === 'running');
    let engine: string | null = null;
    await runtime.ping().catch((error: unknown) => (engine = String(error)));
    for (const d of running) {
      const reason =
        'Slipway stopped while this deployment was running; ' +
        (engine === null ? 'its build and container were discarded. Deploy again.' : `Docker was unreachable at restart (${engine}). Deploy again.`);
      await this.closeOrphan(d, { failed: reason, complete: 'Slipway restarted after this deployment had switched its route; it is complete' }, engine === null);
    }
    // Before the sweep: the image of a release recorded only now is a kept release's image.
    const recordedNow = await recordMissingReleases(this.deps, this.logger);
    if (engine === null) await this.sweep(recordedNow);
  }

  /**
   * Ends a `running` deployment that no run in this process drives: complete if its service's release is
   * this deployment, otherwise failed with `reason`. Both are decided on the aggregates, never on read models
   * that may lag behind them; what it created is removed (when the engine can be reached) only once this call
   * has recorded the failure, so a deployment that in fact went live or ended meanwhile keeps its containers.
   */
  private async closeOrphan(d: DeploymentRow, why: { failed: string; complete: string }, removeLeftovers = true) {
    const { db, runtime } = this.deps;
    const cmd = await this.contextOf(d.id);
    const { request, status } = (await loadAggregate(cmd, deployment, d.id)).state;
    if (status !== 'running') return;
    const service = (await loadAggregate(cmd, serviceAggregate, d.service_id)).state;
    const release = service.release;
    const last = (await listDeploymentLogs(db, d.id)).at(-1)?.id ?? 0;
    const log = this.logOf(cmd, d.id, last + 1);
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
      if (movedTo && movedTo !== service.service?.nodeId && this.deps.nodes) {
        const there = await this.deps.nodes.runtime(movedTo);
        for (const c of await there.list({ [LABEL.deployment]: d.id })) await there.remove(c.name, 1);
        await there.removeVolumes({ [LABEL.service]: d.service_id });
      }
    } catch (error) {
      // The deployment is ended either way; the start-up sweep removes what is left.
      this.logger.warn('could not remove what an ended deployment left', { deployment: d.id, error: String(error) });
    }
  }

  private async sweep(alsoKept: ReadonlySet<string>) {
    const { db, runtime, cmd } = this.deps;
    const owned = await runtime.list({});
    const services = new Map<string, Awaited<ReturnType<typeof findService>>>();
    const serviceOf = async (id: string) => {
      if (!services.has(id)) services.set(id, await findService(db, id));
      return services.get(id)!;
    };
    for (const c of owned) {
      const service = await serviceOf(c.labels[LABEL.service] ?? '');
      if (!service || service.current_deployment_id !== c.labels[LABEL.deployment]) {
        this.logger.info('removing a container no release owns', { container: c.name });
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
      const engine = service.node_id === null ? runtime : await this.deps.nodes?.runtime(service.node_id).catch(() => null);
      if (!engine) {
        this.logger.warn('the node of a service did not answer: its container is not checked', { service: service.id, node: service.node_id });
        continue;
      }
      if (engine !== runtime) {
        // An interrupted move's copy reader may still run on the volume the current container is started on below.
        for (const c of await engine.list({ [LABEL.service]: service.id })) {
          if (c.labels[LABEL.deployment] === service.current_deployment_id) continue;
          this.logger.info('removing a container no release owns', { container: c.name, node: service.node_id });
          await engine.remove(c.name, 1);
        }
      }
      const state = await engine.inspect(service.current_container!, service.runtime_mode === 'worker' ? null : service.internal_port);
      if (!state) {
        this.logger.warn('the current container of a service is gone', { service: service.id, container: service.current_container });
        await releaseService(cmd, service.id, NO_RELEASE);
      } else if (stoppedOnRequest(service)) {
        if (state.running) await stopStoppedRelease(this.deps, service.id);
      } else if (!state.running && state.exitCode !== null && state.restarts === 0) {
        // Stopped by a database redeploy that was cut short: it is still the release, so it runs again.
        this.logger.info('starting the stopped current container of a service', { service: service.id, container: service.current_container });
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
}
