import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import { inspectService, ofSpec, type TaskInfo } from './swarm-updates.js';

/** How a task of the release ended that says the release misbehaves; `shutdown` is a drain's or a scale-down's. */
const MISBEHAVED = new Set(['failed', 'rejected', 'complete']);

/**
 * The release watch of a Swarm service: for `windowMs` after it went live, any task of its current spec that
 * failed (exited, crashed, turned unhealthy; Swarm replaces it) or was rejected by its node is what went wrong.
 * Null when none did, or when the watch was called off (`signal`). Swarm's own update monitor ends with the update.
 */
export async function watchSwarmRelease(docker: Docker, name: string, windowMs: number, intervalMs: number, signal: AbortSignal): Promise<string | null> {
  const until = Date.now() + windowMs;
  while (Date.now() < until && !signal.aborted) {
    await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return null;
    const service = await inspectService(docker, name).catch(() => undefined);
    if (service === undefined) continue; // the engine did not answer this time; the next look decides
    if (service === null) return 'its Swarm service disappeared';
    const tasks = (await docker.listTasks({ filters: { service: [name] } }).catch(() => undefined)) as TaskInfo[] | undefined;
    const ended = tasks?.find((t) => ofSpec(t, service.Spec) && MISBEHAVED.has(t.Status?.State ?? ''));
    if (ended) {
      const why = ended.Status?.Err || ended.Status?.Message || `exit code ${ended.Status?.ContainerStatus?.ExitCode ?? 'unknown'}`;
      return `its task ${name}.${ended.Slot ?? '?'} ${ended.Status?.State === 'complete' ? 'exited' : ended.Status?.State} on node ${(ended.NodeID ?? '?').slice(0, 12)}: ${why}`;
    }
  }
  return null;
}
