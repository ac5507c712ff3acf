import type Docker from 'dockerode';
import t from 'tap';
import type { NodeHosts } from '../../src/cluster/node-hosts.js';
import { startUsageSampling } from '../../src/composition/usage.js';
import type { ContainerRuntime, ContainerUsage } from '../../src/runtime/container-runtime.js';
import { eventually } from '../helpers/net.js';

const reading = (memoryBytes: number, cpuPercent = 10): ContainerUsage => ({ cpuPercent, memoryBytes, memoryLimitBytes: 1_000, pids: 2 });

/** Engines whose containers each stream one reading, then nothing until stopped; what each was asked is kept. */
function engines(readings: Record<string, ContainerUsage>) {
  const streams: { node: string | null; container: string; signal: AbortSignal }[] = [];
  const runtimeOf = (node: string | null) =>
    ({
      async *usage(container: string, signal: AbortSignal) {
        streams.push({ node, container, signal });
        yield readings[container] ?? null;
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
      },
    }) as unknown as ContainerRuntime;
  const nodes: NodeHosts = { runtime: async (node) => runtimeOf(node), port: async (_node, port) => port };
  return { nodes, streams };
}

const task = (node: string, container: string) => ({ NodeID: node, Status: { State: 'running', ContainerStatus: { ContainerID: container } } });

t.test('a container on a node: sampled there, read from the latest reading', async (t) => {
  const { nodes, streams } = engines({ db: reading(300) });
  const usage = startUsageSampling({ quietMs: 60_000, nodes, managerHost: { docker: () => Promise.reject(new Error('no cluster')) } });
  t.teardown(() => usage.stop());
  const service = { current_container: 'db', node_id: 'worker' };
  const seen = await eventually(() => usage.ofService(service), (u) => u !== null);
  t.same(seen, reading(300));
  t.same(usage.sampled().containers, ['worker/db']);
  t.same(streams.map((s) => s.node), ['worker'], 'one stream, on its node');
  t.equal(await usage.ofService({ current_container: null, node_id: null }), null, 'nothing runs: null, nothing sampled');
  t.equal(usage.sampled().streamsStarted, 1);
});

t.test('a Swarm service: its running tasks listed on the manager, each sampled on its node, summed', async (t) => {
  const { nodes, streams } = engines({ c1: reading(100, 5), c2: reading(200, 7.5) });
  let listed = 0;
  const manager = {
    async listTasks() {
      listed++;
      return [task('n1', 'c1'), task('n2', 'c2'), { NodeID: 'n3', Status: { State: 'shutdown', ContainerStatus: { ContainerID: 'old' } } }];
    },
  } as unknown as Docker;
  const usage = startUsageSampling({ quietMs: 60_000, nodes, managerHost: { docker: async () => manager } });
  const service = { current_container: 'swarm:web', node_id: null };
  const summed = await eventually(() => usage.ofService(service), (u) => u !== null && u.memoryBytes === 300);
  t.same(summed, { cpuPercent: 12.5, memoryBytes: 300, memoryLimitBytes: 2_000, pids: 4 }, 'the sum over the running tasks, the limit too');
  t.same(usage.sampled().swarmServices, ['web']);
  t.same(usage.sampled().containers.sort(), ['n1/c1', 'n2/c2'], 'a task that is not running is not sampled');
  for (let i = 0; i < 5; i++) await usage.ofService(service);
  t.equal(listed, 1, 'the tasks are listed in the background, not per overview');
  t.equal(streams.length, 2, 'one stream per task, whatever the overviews');
  await usage.stop();
  t.ok(streams.every((s) => s.signal.aborted), 'stop closes every stream');
  t.same(usage.sampled(), { containers: [], swarmServices: [], streamsStarted: 2 });
});
