import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LABEL } from '../src/runtime/container-runtime.js';
import { dockerUnavailable, docker, removeProjectLeftovers } from '../test/helpers/docker.js';
import { claimHostPorts } from '../test/helpers/host-ports.js';
import { testWebService } from '../test/helpers/http-resources.js';
import { median } from './deploy.js';
import { bootstrapClient } from './bootstrap-client.js';
import { line } from './print.js';

type StartServer = (dataDir: string, env?: Record<string, string>) => Promise<{ child: ChildProcess; url: string }>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
/** CPU time (user + system) a process has used so far, in ms. */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** The service overview of one deployed container, its use read from the background sampler. */
export async function overviewBenchmarks(startServer: StartServer) {
  const skip = await dockerUnavailable();
  if (skip) return line('service overview', `skipped: ${skip}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-overview-'));
  // A quiet period short enough to see sampling stop within the bench.
  const quietSeconds = 10;
  const { child, url } = await startServer(dataDir, { SLIPWAY_HOST_PORT_RANGE: claimHostPorts().range, SLIPWAY_USAGE_QUIET: String(quietSeconds) });
  let projectId: string | null = null;
  try {
    const { call } = bootstrapClient(dataDir, url);
    projectId = (await call('POST', '/api/projects', { name: 'Overview', description: 'bench' })).body.project.id as string;
    const service = (await call('POST', `/api/projects/${projectId}/services`, testWebService('overview'))).body.service.id as string;
    const deployment = (await call('POST', `/api/services/${service}/deployments`)).body.deployment.id as string;
    for (;;) {
      const listed = (await call('GET', `/api/services/${service}/deployments`)).body.deployments as { id: string; status: string }[];
      const status = listed.find((d) => d.id === deployment)?.status;
      if (status === 'succeeded') break;
      if (status === 'failed' || status === 'aborted') throw new Error(`the deployment ${status}`);
      await sleep(250);
    }

    const timed = async (path: string) => {
      const started = performance.now();
      const { status, body } = await call('GET', path);
      if (status !== 200) throw new Error(`GET ${path}: ${status}`);
      return { ms: performance.now() - started, body };
    };
    const overview = `/api/services/${service}/overview`;
    const first = await timed(overview);
    line('overview: the first, which starts sampling its container', `${first.ms.toFixed(0)} ms (usage ${first.body.usage ? 'known' : 'null: not known yet'})`);
    while (!(await timed(overview)).body.usage) await sleep(100);

    const times: number[] = [];
    let known = 0;
    for (let i = 0; i < 200; i++) {
      const { ms, body } = await timed(overview);
      times.push(ms);
      if (body.usage) known++;
    }
    line('overview: 200 requests one after another, p50 / p99', `${median(times).toFixed(1)} ms / ${percentile(times, 99).toFixed(1)} ms (${known} of 200 with usage)`);
    const plain: number[] = [];
    for (let i = 0; i < 200; i++) plain.push((await timed(`/api/services/${service}`)).ms);
    line('for comparison: GET /api/services/:id (no usage), p50 / p99', `${median(plain).toFixed(1)} ms / ${percentile(plain, 99).toFixed(1)} ms`);
    const [container] = await docker.listContainers({ filters: { label: [`${LABEL.service}=${service}`] } });
    const sample: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await docker.getContainer(container!.Id).stats({ stream: false });
      sample.push(performance.now() - started);
    }
    line('for comparison: one Docker stats sample (what each overview waited for before), median of 5', `${median(sample).toFixed(0)} ms`);

    // Measured once the requests' own work has settled, within the quiet period of the overview just asked.
    await sleep(3_000);
    await timed(overview);
    await sleep(1_000);
    const sampling = cpuMs(child.pid!);
    await sleep(5_000);
    line('server CPU while sampling one container, over 5 s', `${cpuMs(child.pid!) - sampling} ms`);
    await sleep((quietSeconds + 2) * 1000);
    const quiet = cpuMs(child.pid!);
    await sleep(5_000);
    line(`server CPU once sampling stopped (${quietSeconds} s without an overview), over 5 s`, `${cpuMs(child.pid!) - quiet} ms`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    if (projectId) await removeProjectLeftovers(projectId);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
