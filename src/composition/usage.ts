import type { ManagerHost } from '../cluster/manager-host.js';
import type { NodeHosts } from '../cluster/node-hosts.js';
import { swarmServiceOf } from '../cluster/swarm-release-name.js';
import { followSwarmTasks, summedUsage, type SwarmTask } from '../cluster/swarm-usage.js';
import type { ContainerUsage } from '../runtime/container-runtime.js';
import { Sampler } from '../runtime/sampler.js';

/** What an overview waits at most for a first reading of a container nobody was looking at. */
const FIRST_READING_MS = 100;
/**
 * The most containers (and Swarm services) sampled at once, whatever keys ask: one stream costs Slipway and the
 * engine about a millisecond of CPU a second each. Past it, a new one ends the stream read least recently.
 */
export const MAX_SAMPLED = 100;
/** Tasks change only with an update, a scale or a failed node: a new one is summed within this. */
const SWARM_TASKS_EVERY_MS = 5_000;

export interface UsageSamplingDeps {
  /** A container nobody has asked about for this long is no longer sampled. */
  quietMs: number;
  nodes: NodeHosts;
  managerHost: ManagerHost;
}

/** The current use of services, sampled in the background while someone looks at them (src/runtime/sampler.ts). */
export interface UsageSampling {
  /**
   * A service's use from the latest readings, starting to sample its container (a Swarm service's tasks) if nobody
   * was; waits at most FIRST_READING_MS. null when nothing runs or no reading is known yet.
   */
  ofService(service: { current_container: string | null; node_id: string | null }): Promise<ContainerUsage | null>;
  /** What is sampled now: containers as `<node>/<container>` (`local` on this server), Swarm services by name. */
  sampled(): { containers: string[]; swarmServices: string[]; streamsStarted: number };
  stop(): Promise<void>;
}

export function startUsageSampling({ quietMs, nodes, managerHost }: UsageSamplingDeps): UsageSampling {
  const containers = new Sampler<ContainerUsage | null>({ quietMs, max: MAX_SAMPLED });
  const swarmTasks = new Sampler<SwarmTask[]>({ quietMs, max: MAX_SAMPLED });

  const containerUsage = (nodeId: string | null, container: string, deadline: number) =>
    containers.read(
      `${nodeId ?? 'local'}/${container}`,
      async (publish, signal) => {
        const runtime = await unlessAborted(nodes.runtime(nodeId), signal);
        if (!runtime) return;
        for await (const reading of runtime.usage(container, signal)) publish(reading);
      },
      deadline,
    );

  async function swarmUsage(service: string, deadline: number): Promise<ContainerUsage | null> {
    const tasks = await swarmTasks.read(
      service,
      async (publish, signal) => {
        const manager = await unlessAborted(managerHost.docker(), signal);
        if (manager) await followSwarmTasks(manager, service, SWARM_TASKS_EVERY_MS, publish, signal);
      },
      deadline,
    );
    return summedUsage(await Promise.all((tasks ?? []).map((task) => containerUsage(task.nodeId, task.containerId, deadline))));
  }

  return {
    async ofService({ current_container: container, node_id: nodeId }) {
      if (!container) return null;
      const deadline = Date.now() + FIRST_READING_MS;
      const swarm = swarmServiceOf(container);
      return swarm ? swarmUsage(swarm, deadline) : ((await containerUsage(nodeId, container, deadline)) ?? null);
    },
    sampled: () => ({ containers: containers.keys(), swarmServices: swarmTasks.keys(), streamsStarted: containers.started }),
    async stop() {
      await Promise.all([containers.stop(), swarmTasks.stop()]);
    },
  };
}

/** `work`'s value, or null once the signal fires first: reaching a node's engine may take a minute, a stop does not wait for it. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
