import type Docker from 'dockerode';
import type { ContainerUsage } from '../runtime/container-runtime.js';
import type { NodeHosts } from './node-hosts.js';

interface RunningTask {
  NodeID?: string;
  Status?: { State?: string; ContainerStatus?: { ContainerID?: string } };
}

/**
 * A Swarm service's use: the sum over its running tasks, each sampled on its own node through the node's agent;
 * null when none could be sampled. A task whose node does not answer in time is left out.
 */
export async function swarmUsage(manager: Docker, nodes: NodeHosts, service: string, timeoutMs: number): Promise<ContainerUsage | null> {
  const tasks = (await manager.listTasks({ filters: { service: [service], 'desired-state': ['running'] } })) as RunningTask[];
  const samples = await Promise.all(
    tasks
      .filter((task) => task.Status?.State === 'running' && task.NodeID && task.Status.ContainerStatus?.ContainerID)
      .map(async (task) => {
        const sampling = nodes.runtime(task.NodeID!).then((runtime) => runtime.stats(task.Status!.ContainerStatus!.ContainerID!, timeoutMs));
        const late = new Promise<null>((resolve) => setTimeout(resolve, timeoutMs * 2, null).unref());
        return Promise.race([sampling.catch(() => null), late]);
      }),
  );
  const taken = samples.filter((s): s is ContainerUsage => s !== null);
  if (taken.length === 0) return null;
  const sum = (pick: (u: ContainerUsage) => number) => taken.reduce((total, u) => total + pick(u), 0);
  return {
    cpuPercent: Math.round(sum((u) => u.cpuPercent) * 100) / 100,
    memoryBytes: sum((u) => u.memoryBytes),
    memoryLimitBytes: sum((u) => u.memoryLimitBytes),
    pids: sum((u) => u.pids),
  };
}
