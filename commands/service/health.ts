import type { ProbeResult, ServiceEvent } from './events.js';

/** The current release's health as recorded in the service's stream. */
export interface RecordedHealth {
  deploymentId: string;
  status: 'healthy' | 'unhealthy';
  crashed: boolean;
  restarts: number;
}

/** What the health monitor saw of a service's current container at one look. */
export interface HealthObservation {
  deploymentId: string;
  /** False when the container exited or Docker is restarting it. */
  running: boolean;
  exitCode: number | null;
  /** Docker's restart count of the container. */
  restarts: number;
  /** The last probe, null when the service has no check (a worker) or the container is down. */
  probe: ProbeResult | null;
  /** Whether the check failed `retries` times in a row (one failure is not yet a change of state). */
  failing: boolean;
}

function crashDetail(o: HealthObservation): string {
  if (!o.running) return `the container is down (exit code ${o.exitCode ?? 'unknown'}); restarts: ${o.restarts}`;
  return `the container was restarted by Docker (${o.restarts} restart${o.restarts === 1 ? '' : 's'})`;
}

/** The change an observation makes to the recorded health (`service.decide.health` without the aggregate, for the monitor's cache). */
export function healthChange(recorded: RecordedHealth | null, o: HealthObservation): ServiceEvent[] {
  if (!recorded || recorded.deploymentId !== o.deploymentId) return [];
  const crashed = !o.running || o.restarts > recorded.restarts;
  // A failure short of `retries` in a row changes nothing either way: not yet unhealthy, not yet recovered.
  if (!crashed && !o.failing && o.probe?.ok === false) return [];
  const healthy = !crashed && !o.failing;
  if (healthy) {
    if (recorded.status === 'healthy') return [];
    return [{ type: 'ServiceRecovered', data: { deploymentId: o.deploymentId, detail: o.probe?.detail ?? 'the container runs', probe: o.probe, restarts: o.restarts } }];
  }
  if (recorded.status === 'unhealthy' && recorded.crashed === crashed) return [];
  const detail = crashed ? crashDetail(o) : (o.probe?.detail ?? 'the check failed');
  return [{ type: 'ServiceBecameUnhealthy', data: { deploymentId: o.deploymentId, detail, probe: o.probe, restarts: o.restarts, crashed } }];
}

