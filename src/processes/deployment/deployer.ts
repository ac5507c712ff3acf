import { parseDeploymentEvent } from '../../../commands/deployment/events.js';
import { cancelQueuedDeployment, deploymentSteps, queueDeployment } from '../../../commands/deployment/handlers.js';
import { releasePolicyOf } from '../../../commands/service/fields.js';
import { parseProjectEvent } from '../../../commands/project/events.js';
import { parseServiceEvent } from '../../../commands/service/events.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { loadAggregate } from '../../../commands/shared/execute.js';
import { service as serviceAggregate } from '../../../commands/service/aggregate.js';
import { listDeploymentLogs, listUnfinishedDeployments, type DeploymentRow } from '../../../projections/deployment-queries.js';
import { aggregateIdOf } from '../../../projections/stream-id.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Logger } from '../../logger.js';
import type { DeploymentLog } from './toolkit/deployment-log.js';
import { runDeployment } from './deployment-run.js';
import type { ReleaseWatch } from './toolkit/run-outcome.js';
import type { RunDeps } from './toolkit/run-deps.js';
import { recorded } from '../recorded.js';
import { watchRelease } from './release-watch.js';
import { swarmWatchesToResume, watchesToResume } from './release-watch-resume.js';
import { queueAcceptedDelivery } from '../../../commands/auto-deploy/accept-delivery.js';
import { acceptedDeliveriesNotQueued } from '../../../projections/auto-deploy-queries.js';
import { watchSwarmRelease } from '../../cluster/swarm-watch.js';
import { stopStoppedRelease } from './toolkit/service-stop.js';
import { DEPLOYER_ACTOR, deploymentContext, deploymentLog } from './deployment-context.js';
import { closeOrphan, recover } from './deployer-recovery.js';
import { removeEverythingOf, removeNetworkOf } from './service-removal.js';
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
    await recover(this.deps, this.logger).catch((error: unknown) => this.logger.warn('deployment recovery incomplete', { error: String(error) }));
    this.started = true;
    await this.resumeWatches().catch((error: unknown) => this.logger.warn('release watches could not be resumed', { error: String(error) }));
    this.kick();
  }

  /** A restart inside a release's watch window resumes the watch until the end recorded with its success. */
  private async resumeWatches() {
    await this.resume(await watchesToResume(this.deps));
    // In the background: the cluster answers only once its registry's move at start is done, which start does not wait for.
    const { cluster } = this.deps;
    if (!cluster) return;
    this.inBackground(
      swarmWatchesToResume({ ...this.deps, cluster }).then(
        (watches) => this.resume(watches),
        (error: unknown) => this.logger.warn('the release watches of Swarm services could not be resumed', { error: String(error) }),
      ),
    );
  }

  private async resume(watches: readonly ReleaseWatch[]) {
    for (const watch of watches) {
      if (this.stopping) return;
      const cmd = await deploymentContext(this.deps.cmd, watch.deploymentId);
      const last = (await listDeploymentLogs(this.deps.db, watch.deploymentId)).at(-1)?.id ?? 0;
      const log = deploymentLog(this.logger, cmd, watch.deploymentId, last + 1);
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
        const removal = removeEverythingOf(this.deps, this.logger, serviceId).finally(() => this.removals.delete(removal));
        this.removals.add(removal);
        this.inBackground(removal);
      } else if (serviceEvent?.type === 'ServiceStopped') {
        this.inBackground(stopStoppedRelease(this.deps, aggregateIdOf(recorded.streamId)));
      } else if (!deploymentEvent && !serviceEvent && parseProjectEvent(recorded)?.type === 'ProjectDeleted') {
        // Its services' removals (and aborted runs), started by their ServiceDeleted events before this one, leave the network unused.
        const removals = [...this.removals, ...[...this.active.values()].filter((r) => r.controller.signal.aborted).map((r) => r.done)];
        this.inBackground(Promise.allSettled(removals).then(() => removeNetworkOf(this.deps, this.logger, aggregateIdOf(recorded.streamId))));
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
        await closeOrphan(this.deps, this.logger, d, {
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
        await cancelQueuedDeployment(await deploymentContext(this.deps.cmd, older.id), older.id, `superseded by the newer deployment ${newest.id}`, newest.id);
      }
      if (this.active.size >= this.options.concurrency) continue;
      await this.launch(newest);
    }
  }

  private async launch(row: DeploymentRow) {
    const controller = new AbortController();
    this.watches.get(row.service_id)?.abort();
    const cmd = await deploymentContext(this.deps.cmd, row.id);
    const log = deploymentLog(this.logger, cmd, row.id);
    const done = runDeployment({ ...this.deps, cmd }, row.id, row.service_id, log, controller.signal)
      .then((live) => {
        if (!live) return;
        this.inBackground(live.drainAndPrune());
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
    // A watch resumed late (a Swarm service's, once the cluster answers) is of a release another deployment replaces.
    const another = [...this.active].some(([id, run]) => run.serviceId === watch.serviceId && id !== watch.deploymentId);
    if (another || state.release?.deploymentId !== watch.deploymentId) return;
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
      const rollback = await queueDeployment({ ...cmd, actor: DEPLOYER_ACTOR }, watch.serviceId, {
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
}
