import { parseDeploymentEvent, type DeploymentEvent } from '../../../commands/deployment/events.js';
import { service, type RecordedHealth } from '../../../commands/service/aggregate.js';
import { parseServiceEvent, type ProbeResult } from '../../../commands/service/events.js';
import { effectiveHealthCheck, fromHealthCheckColumn, type HealthCheck } from '../../../commands/service/health-check.js';
import { healthChange, type HealthObservation } from '../../../commands/service/health.js';
import { recordHealth } from '../../../commands/service/handlers.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { listUnfinishedDeployments } from '../../../projections/deployment-queries.js';
import { listReleasedServices, type ServiceRow } from '../../../projections/service-queries.js';
import type { SqlExecutor } from '../../db/sql-client.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Logger } from '../../logger.js';
import type { ContainerRuntime } from '../../runtime/container-runtime.js';
import { probe } from './health-probes.js';
import type { Reactor } from '../reactor.js';
import type { NodeHosts } from '../../cluster/node-hosts.js';

export interface HealthMonitorDeps {
  /** A fresh context per recorded change: each change is its own correlation id in the history. */
  cmd: () => CommandContext;
  db: SqlExecutor;
  runtime: ContainerRuntime;
  /** The engine of the node a database service is pinned to (cluster mode). */
  nodes?: NodeHosts;
}

export interface HealthMonitorOptions {
  /** How often the loop looks for services whose interval has come. */
  tickMs: number;
  /** Probes in flight at once, over every service. */
  concurrency: number;
}

/** A service without a check (a worker) is still looked at this often, for crashes. */
const UNCHECKED_INTERVAL_MS = 5_000;

/** A deployment that starts or ends changes what to probe (or whether: a running one is left alone). */
const WATCHED_DEPLOYMENT_EVENTS = new Set<DeploymentEvent['type']>(['DeploymentStarted', 'DeploymentSucceeded', 'DeploymentFailed', 'DeploymentAborted', 'DeploymentCanceled', 'DeploymentRolledBack']);

interface Target {
  serviceId: string;
  deploymentId: string;
  container: string;
  internalPort: number;
  /** A database pinned to a cluster node, probed through the node's agent at its published port. */
  pinned: { nodeId: string; hostPort: number } | null;
  check: HealthCheck | null;
  intervalMs: number;
  /** Consecutive failed probes; `retries` of them make it unhealthy. */
  failures: number;
  nextAt: number;
  recorded: RecordedHealth;
}

/** A database's own check is "the engine answers"; from outside that is its port on the container's address. */
function monitoredCheck(row: ServiceRow): HealthCheck | null {
  const { check } = effectiveHealthCheck({ kind: row.kind, runtimeMode: row.runtime_mode, healthCheck: fromHealthCheckColumn(row.health_check) });
  if (check?.type === 'engine') return { type: 'tcp', intervalSeconds: check.intervalSeconds, timeoutSeconds: check.timeoutSeconds, retries: check.retries, startPeriodSeconds: 0 };
  return check;
}

function targetOf(row: ServiceRow, earlier: Target | undefined, now: number): Target {
  const check = monitoredCheck(row);
  const deploymentId = row.current_deployment_id!;
  const recorded: RecordedHealth = { deploymentId, status: row.health_status === 'unhealthy' ? 'unhealthy' : 'healthy', crashed: row.status === 'crashed', restarts: row.restarts };
  const same = earlier?.deploymentId === deploymentId;
  return {
    serviceId: row.id,
    deploymentId,
    container: row.current_container!,
    internalPort: row.internal_port,
    pinned: row.node_id ? { nodeId: row.node_id, hostPort: row.host_port } : null,
    check,
    intervalMs: check ? check.intervalSeconds * 1000 : UNCHECKED_INTERVAL_MS,
    failures: same ? earlier.failures : 0,
    nextAt: same ? earlier.nextAt : now + (check ? check.intervalSeconds * 1000 : UNCHECKED_INTERVAL_MS),
    recorded: same ? earlier.recorded : recorded,
  };
}

/**
 * Probes every released service at its check's interval, from one timer loop with a small bound on probes in
 * flight, and records a change of state (never a probe) as ServiceBecameUnhealthy / ServiceRecovered. What
 * to probe is read from the services read model on the reconcile tick and after a release or a deployment
 * event, never by the probing loop (a quiet store may sleep); services with a deployment running are left to
 * it (a database deploy stops its old container).
 */
export class HealthMonitor implements Reactor {
  readonly name = 'health-monitor';
  private targets = new Map<string, Target>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: HealthMonitorDeps,
    private readonly options: HealthMonitorOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), this.options.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
  }

  async handle(batch: readonly RecordedEvent[]): Promise<void> {
    const relevant = batch.some((recorded) => {
      const deploymentEvent = parseDeploymentEvent(recorded);
      if (deploymentEvent) return WATCHED_DEPLOYMENT_EVENTS.has(deploymentEvent.type);
      const serviceEvent = parseServiceEvent(recorded);
      return (
        serviceEvent?.type === 'ServiceReleased' ||
        serviceEvent?.type === 'ServiceUpdated' ||
        serviceEvent?.type === 'ServiceDeleted' ||
        serviceEvent?.type === 'ServiceStopped'
      );
    });
    if (relevant) await this.refresh();
  }

  /** Runs when the store is awake anyway (the process managers' tick): the probing loop itself never reads it. */
  async reconcile(): Promise<void> {
    await this.refresh();
  }

  /** One pass; a pass still running when the timer fires again is not doubled. */
  tick(): void {
    if (this.ticking || this.stopped) return;
    this.ticking = this.pass()
      .catch((error: unknown) => this.log.warn('health monitor pass failed', { error: String(error) }))
      .finally(() => {
        this.ticking = null;
      });
  }

  private async pass(): Promise<void> {
    const now = Date.now();
    const due = [...this.targets.values()].filter((t) => t.nextAt <= now);
    let next = 0;
    const worker = async () => {
      while (next < due.length && !this.stopped) {
        const target = due[next++]!;
        target.nextAt = Date.now() + target.intervalMs;
        await this.look(target).catch((error: unknown) => this.log.warn('health probe failed', { service: target.serviceId, error: String(error) }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, due.length) }, worker));
  }

  private async refresh(): Promise<void> {
    const deploying = new Set((await listUnfinishedDeployments(this.deps.db)).filter((d) => d.status === 'running').map((d) => d.service_id));
    const now = Date.now();
    const next = new Map<string, Target>();
    for (const row of await listReleasedServices(this.deps.db)) {
      // A service stopped on request is down on purpose: nothing to report.
      if (deploying.has(row.id) || row.current_deployment_id === null || row.status === 'stopped') continue;
      next.set(row.id, targetOf(row, this.targets.get(row.id), now));
    }
    this.targets = next;
  }

  private async look(target: Target): Promise<void> {
    const { pinned } = target;
    const runtime = pinned && this.deps.nodes ? await this.deps.nodes.runtime(pinned.nodeId) : this.deps.runtime;
    const state = await runtime.inspect(target.container, null);
    const running = state?.running ?? false;
    let result: ProbeResult | null = null;
    if (running && target.check) {
      // Slipway reaches no address on a node's networks; the node's agent relays to the published port.
      const at = pinned && this.deps.nodes ? { address: '127.0.0.1', defaultPort: await this.deps.nodes.port(pinned.nodeId, pinned.hostPort) } : { address: state!.address, defaultPort: target.internalPort };
      result = await probe(runtime, { check: target.check, container: target.container, ...at });
      target.failures = result.ok ? 0 : target.failures + 1;
    }
    const observation: HealthObservation = {
      deploymentId: target.deploymentId,
      running,
      exitCode: state?.exitCode ?? null,
      restarts: state?.restarts ?? target.recorded.restarts,
      probe: result,
      failing: target.check !== null && target.failures >= target.check.retries,
    };
    const change = healthChange(target.recorded, observation);
    // A look that a refresh overtook (a new release, a deployment started) is dropped.
    if (change.length === 0 || this.targets.get(target.serviceId) !== target) return;
    const appended = await recordHealth(this.deps.cmd(), target.serviceId, observation);
    for (const event of appended.events) {
      target.recorded = service.evolve({ ...service.initial, status: 'live', health: target.recorded }, event).health ?? target.recorded;
    }
  }
}
