import type { RecordedHealth, ServiceState } from './aggregate.js';
import type { ProbeResult, ServiceEvent } from './events.js';

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

/**
 * A change of the current release's health, or nothing: an unchanged state appends nothing, and a look at
 * a container that is no longer current (a newer release, none) is dropped. A restart counted since the
 * last record is a crash even when the container is back up by the time of the look.
 */
export function decideHealth(state: ServiceState, o: HealthObservation): ServiceEvent[] {
  return state.status === 'live' ? healthChange(state.health, o) : [];
}

/** The change an observation makes to the recorded health (decideHealth without the aggregate, for the monitor's cache). */
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

