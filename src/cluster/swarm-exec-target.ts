import type Docker from 'dockerode';

/** Where a terminal into a Swarm service runs: one running task's container, on its node. */
export interface SwarmExecTarget {
  taskId: string;
  /** The Swarm node the task runs on; null when that is the manager itself (this server's Docker host). */
  nodeId: string | null;
  containerId: string;
}

interface TaskInfo {
  ID: string;
  NodeID?: string;
  Status?: { State?: string; ContainerStatus?: { ContainerID?: string } };
}

/** The chosen running task of the service (`taskId`), or its first running one; null when none runs. */
export async function swarmExecTarget(manager: Docker, swarmService: string, taskId: string | undefined): Promise<SwarmExecTarget | null> {
  // The engine answers 404 for a service it does not have (one just removed): it has no task.
  const tasks = (await manager.listTasks({ filters: { service: [swarmService], 'desired-state': ['running'] } }).catch((error: { statusCode?: number }) => {
    if (error.statusCode === 404) return [];
    throw error;
  })) as TaskInfo[];
  const running = tasks.filter((t) => t.Status?.State === 'running' && t.Status.ContainerStatus?.ContainerID).sort((a, b) => a.ID.localeCompare(b.ID));
  const task = taskId === undefined ? running[0] : running.find((t) => t.ID === taskId || t.ID.startsWith(taskId));
  if (!task) return null;
  const self = ((await manager.info()) as { Swarm?: { NodeID?: string } }).Swarm?.NodeID;
  return { taskId: task.ID, nodeId: task.NodeID && task.NodeID !== self ? task.NodeID : null, containerId: task.Status!.ContainerStatus!.ContainerID! };
}
