import { setTimeout as sleep } from 'node:timers/promises';
import { effectiveHealthCheck, fromHealthCheckColumn, type HealthCheck } from '../../../../commands/service/health-check.js';
import type { ProbeResult } from '../../../../commands/service/events.js';
import type { ServiceRow } from '../../../../projections/service-queries.js';
import type { ContainerRuntime } from '../../../runtime/container-runtime.js';
import type { DeploymentLog } from '../toolkit/deployment-log.js';
import { DeployFailure } from '../toolkit/run-step.js';
import type { RunDeps } from '../toolkit/run-deps.js';
import { probe } from '../../health/health-probes.js';
import { containerEnd, type RunResources } from '../toolkit/service-resources.js';

/**
 * Until a new container first answers: every 15 ms for its first second (most apps are up by then, and each
 * ms of the wait is a ms of the deploy), every 25 ms up to 5 s (a database's initdb), then every 100 ms
 * (each try asks the engine too).
 */
export const untilReadyDelay = (elapsedMs: number) => (elapsedMs < 1_000 ? 15 : elapsedMs < 5_000 ? 25 : 100);
/** Between the passes that follow the first: the check's interval, but no longer than this during a deploy. */
const BETWEEN_PASSES_MAX_MS = 1_000;
/**
 * An app that answers, but with a server error (HTTP 5xx), this many times in a row, a second apart, is up
 * and broken: the gate fails then instead of waiting out its time. An app still warming up that answers 503
 * for a few seconds gets through.
 */
export const BROKEN_ANSWERS = 10;
const BROKEN_SPACING_MS = 1_000;
const SERVER_ERROR = /^HTTP (5\d\d) from (\S+)/;

export interface GateOptions {
  runtime: ContainerRuntime;
  row: ServiceRow;
  container: string;
  startMs: number;
  workerSettleMs: number;
  /** A line for the deployment log (a probe result that changed). */
  note(line: string): void;
  /** The limits it runs with, to say "out of memory (limit …)" of a container the kernel killed. */
  resources: RunResources;
}

/** The check a service's release must pass, or null when it must only stay up (a worker by default). */
export function gateCheckOf(row: ServiceRow): HealthCheck | null {
  const { check } = effectiveHealthCheck({ kind: row.kind, runtimeMode: row.runtime_mode, healthCheck: fromHealthCheckColumn(row.health_check) });
  return check === null || check.type === 'engine' ? null : check;
}

function notReady(check: HealthCheck, row: ServiceRow, startMs: number, last: ProbeResult | null): DeployFailure {
  const seconds = Math.round(startMs / 1000);
  const lastProbe = last ? last.detail : 'no probe ran';
  if (check.type === 'http' && (last === null || !last.detail.startsWith('HTTP '))) {
    const port = check.port ?? row.internal_port;
    return new DeployFailure(`the app did not answer HTTP on port ${port} within ${seconds} s; it must listen on 0.0.0.0:$PORT; last probe: ${lastProbe}`);
  }
  const times = check.retries === 1 ? '' : ` ${check.retries} times in a row`;
  return new DeployFailure(`the ${check.type} health check did not pass${times} within ${seconds} s; last probe: ${lastProbe}`);
}

/**
 * The gate a new release passes before it takes the route: after `startPeriodSeconds`, `retries` consecutive
 * passing probes within `startMs`; a container that exits or restarts ends it at once. A service without a
 * check must stay up for `workerSettleMs`.
 */
export async function passGate(o: GateOptions, signal: AbortSignal): Promise<void> {
  const check = gateCheckOf(o.row);
  const started = Date.now();
  const deadline = started + o.startMs;
  const probingFrom = started + (check?.startPeriodSeconds ?? 0) * 1000;
  let passes = 0;
  let broken = 0;
  let last: ProbeResult | null = null;
  for (;;) {
    signal.throwIfAborted();
    const state = await o.runtime.inspect(o.container, null);
    if (!state) throw new DeployFailure('the container disappeared while starting');
    if (!state.running || state.restarts > 0) {
      throw new DeployFailure(`the container ${containerEnd(state, o.resources)} before it was ready; see the log above`);
    }
    let waitMs = untilReadyDelay(Date.now() - started);
    if (check === null) {
      if (Date.now() - started >= o.workerSettleMs) return;
    } else if (Date.now() >= probingFrom) {
      const result = await probe(o.runtime, { check, container: o.container, address: state.address, defaultPort: o.row.internal_port });
      const serverError = result.ok ? null : SERVER_ERROR.exec(result.detail);
      broken = serverError ? broken + 1 : 0;
      if (serverError) o.note(`Health check ${broken}/${BROKEN_ANSWERS}: ${result.detail}`);
      else if (result.detail !== last?.detail) o.note(`Health check: ${result.detail}`);
      last = result;
      if (serverError && broken >= BROKEN_ANSWERS) {
        throw new DeployFailure(`the app answered HTTP ${serverError[1]} on ${serverError[2]} to ${BROKEN_ANSWERS} health checks in a row: it is up but failing; its own log lines above say why`);
      }
      passes = result.ok ? passes + 1 : 0;
      if (passes >= check.retries) return;
      if (passes > 0) waitMs = Math.min(check.intervalSeconds * 1000, BETWEEN_PASSES_MAX_MS);
      if (serverError) waitMs = BROKEN_SPACING_MS;
    }
    if (Date.now() > deadline) {
      if (check === null) throw new DeployFailure(`the worker did not stay up for ${Math.round(o.workerSettleMs / 1000)} s`);
      throw notReady(check, o.row, o.startMs, last);
    }
    await sleep(waitMs, undefined, { signal }).catch(() => undefined);
  }
}

/** The gate of a deployment's new container, its probe results going to the deployment's log. */
export const gateOf = (deps: RunDeps, row: ServiceRow, container: string, log: DeploymentLog, resources: RunResources): GateOptions => ({
  resources,
  runtime: deps.runtime,
  row,
  container,
  startMs: deps.settings.timeouts.startMs,
  workerSettleMs: deps.settings.timeouts.workerSettleMs,
  note: (line) => log.system(line),
});
