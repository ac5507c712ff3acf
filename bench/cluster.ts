import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createProject, createService } from '../test/helpers/api-suite.js';
import { CLUSTER_IMAGES, clusterEnv, clusterUnavailable, loadImages, startNodes } from '../test/helpers/cluster.js';
import { deploy, deployEnv, outcome, probe, steadyLoad } from '../test/helpers/deploy.js';
import { dockerUnavailable, TEST_IMAGES } from '../test/helpers/docker.js';
import { testWebService } from '../test/helpers/http-resources.js';
import { eventually, waitFor } from '../test/helpers/net.js';
import { startTestServer } from '../test/helpers/test-server.js';
import { median } from './deploy.js';
import { line } from './print.js';

const run = promisify(execFile);
// Engines of their own: the tests' cluster files use 1–11.
const MANAGER = 12;
const WORKER = 13;
const UPDATES = 5;

type Server = Awaited<ReturnType<typeof startTestServer>>;

const deploymentLog = async (s: Server, id: string) => (await s.call('GET', `/api/deployments/${id}/logs`)).body.logs as { line: string; createdAt: string }[];

/** When the deployment's first line matching a pattern was written (epoch ms; NaN when none did). */
async function logTimes(s: Server, id: string) {
  const logs = await deploymentLog(s, id);
  return (pattern: RegExp) => Date.parse(logs.find((l) => pattern.test(l.line))?.createdAt ?? '');
}

/** Joining a node (the command as shown → the node `ready`), then updates of 2 tasks on 2 nodes under load. */
export async function clusterBenchmarks() {
  const skip = (await dockerUnavailable()) || (await clusterUnavailable());
  if (skip) {
    line('cluster', `skipped: ${skip}`);
    return;
  }
  const cluster = await startNodes([MANAGER, WORKER], []);
  try {
    const [manager, worker] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    await loadImages(manager, [CLUSTER_IMAGES.registry, CLUSTER_IMAGES.proxy, TEST_IMAGES.web]);
    const { env } = await deployEnv({ ...clusterEnv(manager, 5443), SLIPWAY_CLUSTER_ROUTER: `${manager.address}:7080` });
    const s = await startTestServer(env);
    try {
      cluster.trusts(`${manager.address}:5443`);
      let started = performance.now();
      const init = await s.call('POST', '/api/cluster', { body: { advertiseAddress: manager.address } });
      if (init.status !== 200) throw new Error(`init: ${init.status} ${JSON.stringify(init.body)}`);
      line('cluster init (Swarm, registry with its certificate)', `${Math.round(performance.now() - started)} ms`);
      const { joinCommand } = (await s.call('POST', '/api/cluster/nodes', { body: {} })).body;
      started = performance.now();
      await run('sh', ['-c', joinCommand], { env: { ...process.env, DOCKER_HOST: `unix://${worker.socket}` } });
      await waitFor('two ready nodes', async () => (await s.call('GET', '/api/cluster/nodes')).body.nodes as { state: string }[], (l) => l?.length === 2 && l.every((n) => n.state === 'ready'));
      line('join a node (command as shown → ready)', `${Math.round(performance.now() - started)} ms`);

      const project = await createProject(s, 'Bench cluster');
      const svc = await createService(s, project.id, { ...testWebService('web'), replicas: 2, env: [{ key: 'GREETING', value: 'v0' }] });
      started = performance.now();
      const first = (await deploy(s, svc.id)).done;
      if (first.status !== 'succeeded') throw new Error(`first deployment: ${outcome(first)}`);
      line('first deployment, 2 tasks (push, pull on the worker)', `${Math.round(performance.now() - started)} ms`);
      await eventually(() => probe(svc.hostPort), (r) => r.status === 200, 20_000);

      const times: number[] = [];
      let sent = 0;
      let failed = 0;
      let last = '';
      const swarmTimes: number[] = [];
      for (let i = 1; i <= UPDATES; i++) {
        await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'GREETING', value: `v${i}` } });
        const load = steadyLoad(svc.hostPort, 'localhost');
        started = performance.now();
        const done = (await deploy(s, svc.id)).done;
        times.push(performance.now() - started);
        last = done.id;
        const at = await logTimes(s, done.id);
        swarmTimes.push(at(/^Deployment succeeded/) - at(/^Updating Swarm service/));
        const results = await load.stop();
        sent += results.length;
        failed += results.filter((r) => r.status !== 200).length;
        if (done.status !== 'succeeded') throw new Error(`update ${i}: ${outcome(done)}`);
      }
      line(`update of 2 tasks on 2 nodes under load (${UPDATES} updates)`, `median ${(median(times) / 1000).toFixed(1)} s (${times.map((t) => (t / 1000).toFixed(1)).join(', ')} s)`);
      line('  of which the Swarm update (log: updating → succeeded)', `median ${(median(swarmTimes) / 1000).toFixed(1)} s (${swarmTimes.map((t) => (t / 1000).toFixed(1)).join(', ')} s)`);
      line('failed requests during the updates', `${failed} of ${sent}`);
      // Where the last update's time went, from its own log (each line's time since the deployment began).
      const logs = await deploymentLog(s, last);
      const begun = Date.parse(logs[0]?.createdAt ?? '');
      for (const entry of logs) line(`  +${((Date.parse(entry.createdAt) - begun) / 1000).toFixed(1)} s`, entry.line.slice(0, 110));
    } finally {
      await s.close();
    }
  } finally {
    await cluster.stop();
  }
}
