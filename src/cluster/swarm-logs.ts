import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { LogDemuxer } from '../runtime/docker-streams.js';
import type { OutputLine } from '../runtime/container-runtime.js';

/** A line of a Swarm service's merged output, with the task that wrote it and the node it runs on. */
export interface TaskLine extends OutputLine {
  /** `<service>.<slot>` as `docker service ps` names it, or the task id when Swarm gave no slot. */
  task: string | null;
  node: string | null;
}

interface TaskInfo {
  ID: string;
  Slot?: number;
  NodeID?: string;
}

/** `details: true` puts `com.docker.swarm.node.id=…,com.docker.swarm.service.id=…,com.docker.swarm.task.id=…` before each line. */
const DETAILS = /^(\S*com\.docker\.swarm\.task\.id=\S*) ?/;

/**
 * Every task's output merged, as Swarm's manager collects it from the nodes; each line names its task and node.
 * `since` and `tail` are Docker's; `follow` keeps the stream open until `signal` aborts it or the service goes.
 */
export async function* swarmLogs(
  docker: Docker,
  serviceName: string,
  options: { tail?: number; since?: string; follow: boolean; signal?: AbortSignal },
): AsyncIterable<TaskLine> {
  const [tasks, nodes] = (await Promise.all([docker.listTasks({ filters: { service: [serviceName] } }), docker.listNodes()])) as unknown as [
    TaskInfo[],
    { ID: string; Description?: { Hostname?: string } }[],
  ];
  const hostnames = new Map(nodes.map((n) => [n.ID, n.Description?.Hostname ?? n.ID.slice(0, 12)]));
  const taskNames = new Map(tasks.map((t) => [t.ID, t.Slot ? `${serviceName}.${t.Slot}` : t.ID.slice(0, 12)]));
  const label = (line: OutputLine): TaskLine => {
    const match = DETAILS.exec(line.line);
    if (!match) return { ...line, task: null, node: null };
    const details = new Map(match[1]!.split(',').map((pair) => pair.split('=') as [string, string]));
    const taskId = details.get('com.docker.swarm.task.id') ?? null;
    const nodeId = details.get('com.docker.swarm.node.id') ?? null;
    return {
      ...line,
      line: line.line.slice(match[0].length),
      task: taskId ? (taskNames.get(taskId) ?? taskId.slice(0, 12)) : null,
      node: nodeId ? (hostnames.get(nodeId) ?? nodeId.slice(0, 12)) : null,
    };
  };
  const query = { stdout: true, stderr: true, timestamps: true, details: true, ...(options.tail !== undefined ? { tail: options.tail } : {}), ...(options.since ? { since: options.since } : {}) };
  const demux = new LogDemuxer(true);
  const service = docker.getService(serviceName);
  if (!options.follow) {
    const buffer = (await service.logs({ ...query, follow: false })) as unknown as Buffer;
    yield* demux.push(buffer).map(label);
    yield* demux.end().map(label);
    return;
  }
  const stream = (await service.logs({ ...query, follow: true })) as unknown as Readable;
  const stop = () => stream.destroy();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    for await (const chunk of stream) yield* demux.push(chunk as Buffer).map(label);
  } catch (error) {
    if (!options.signal?.aborted) throw error;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    stream.destroy();
  }
  yield* demux.end().map(label);
}
