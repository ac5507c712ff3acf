import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import type { ContainerUsage } from '../runtime/container-runtime.js';

/** A running task of a Swarm service: the node it runs on and its container there. */
export interface SwarmTask {
  nodeId: string;
  containerId: string;
}

interface ListedTask {
  NodeID?: string;
  Status?: { State?: string; ContainerStatus?: { ContainerID?: string } };
}

/**
 * The running tasks of a Swarm service, listed on the manager every `everyMs` until the signal fires: tasks come and
 * go with updates, scaling and nodes that fail.
 */
export async function followSwarmTasks(manager: Docker, service: string, everyMs: number, publish: (tasks: SwarmTask[]) => void, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const listed = (await manager.listTasks({ filters: { service: [service], 'desired-state': ['running'] }, abortSignal: signal })) as ListedTask[];
    publish(
      listed.flatMap((task) =>
        task.Status?.State === 'running' && task.NodeID && task.Status.ContainerStatus?.ContainerID
          ? [{ nodeId: task.NodeID, containerId: task.Status.ContainerStatus.ContainerID }]
          : [],
      ),
    );
    await sleep(everyMs, undefined, { signal }).catch(() => undefined);
  }
}

/**
 * A Swarm service's use: the sum over its tasks that have a reading (one whose node has not answered yet is left
 * out), the limit too; null when none has one.
 */
export function summedUsage(readings: (ContainerUsage | null | undefined)[]): ContainerUsage | null {
  const taken = readings.filter((u): u is ContainerUsage => !!u);
  if (taken.length === 0) return null;
  const sum = (pick: (u: ContainerUsage) => number) => taken.reduce((total, u) => total + pick(u), 0);
  return {
    cpuPercent: Math.round(sum((u) => u.cpuPercent) * 100) / 100,
    memoryBytes: sum((u) => u.memoryBytes),
    memoryLimitBytes: sum((u) => u.memoryLimitBytes),
    pids: sum((u) => u.pids),
  };
}
