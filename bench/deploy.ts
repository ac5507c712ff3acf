import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProject, createService } from '../test/helpers/api-suite.js';
import { deployEnv, probe, steadyLoad, waitForDeployment } from '../test/helpers/deploy.js';
import { containersOf, dockerUnavailable, removeProjectLeftovers, TEST_IMAGES } from '../test/helpers/docker.js';
import { LABEL } from '../src/runtime/container-runtime.js';
import { startGitServer } from '../test/helpers/git-server.js';
import { readSse } from '../test/helpers/sse.js';
import { startTestServer } from '../test/helpers/test-server.js';
import { line } from './print.js';

/** `slipway deploy` (the built CLI) from its start to the first line on its stdout, and to its exit. */
function cliDeploy(url: string, key: string, service: string): Promise<{ firstLine: number; exit: number; code: number | null }> {
  const started = performance.now();
  const child = spawn(process.execPath, [new URL('../dist/src/cli/main.js', import.meta.url).pathname, 'deploy', service], {
    env: { ...process.env, SLIPWAY_URL: url, SLIPWAY_KEY: key },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let firstLine = 0;
  child.stdout.on('data', () => (firstLine ||= performance.now() - started));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ firstLine, exit: performance.now() - started, code })));
}

/**
 * Where a deployment's time goes, from the timestamps of Slipway's own lines in its log: each step runs
 * from the line that starts it to the line that starts the next.
 */
const STEP_LINES: [string, RegExp][] = [
  ['queued→started', /^Deployment \S+ started$/],
  ['prepare', /^Cloning /],
  ['clone', /^Checked out commit /],
  ['build', /^Built image /],
  ['container', /^Started container /],
  ['ready', /^The app answers/],
  ['switch', /^Deployment succeeded/],
];
export function stepTimes(posted: number, logs: { line: string; stream: string; createdAt: string }[]) {
  const times: Record<string, number> = {};
  let previous = posted;
  for (const [name, pattern] of STEP_LINES) {
    const at = logs.find((l) => l.stream === 'system' && pattern.test(l.line))?.createdAt;
    if (!at) continue;
    times[name] = Date.parse(at) - previous;
    previous = Date.parse(at);
  }
  return times;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

const SERVER = `import http.server, os
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(os.environ.get("VERSION", "?").encode())
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`;
export const app = (version: string) => ({
  Dockerfile: `FROM ${TEST_IMAGES.python}\nWORKDIR /app\nCOPY . .\nENV VERSION=${version}\nCMD ["python3", "server.py"]\n`,
  'server.py': SERVER,
});

/**
 * Until the service runs one container: the previous release drained and removed. The hand path removes its
 * container before its next measurement; a drain still under way would be measured against Slipway.
 */
export async function drained(serviceId: string) {
  while ((await containersOf({ [LABEL.service]: serviceId })).length > 1) await new Promise((r) => setTimeout(r, 50));
}

export async function untilAnswers(port: number, host: string, body: string) {
  for (;;) {
    if ((await probe(port, host)).body === body) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The same app deployed by hand with the docker CLI: build, run, first answer. */
/** The network a hand-run container joins on the second side-by-side: a user-defined one, as Slipway's project network. */
const HAND_NETWORK = 'slipway-bench-hand';

function byHand(version: string, network?: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-hand-'));
  for (const [name, text] of Object.entries(app(version))) writeFileSync(join(dir, name), text);
  const name = `slipway-bench-hand-${version}`;
  const started = performance.now();
  const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', env: { ...process.env, DOCKER_BUILDKIT: '0' }, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  docker('build', '-q', '-t', `slipway-bench/hand:${version}`, dir);
  docker('run', '-d', '--name', name, ...(network ? ['--network', network] : []), '-e', 'PORT=8080', '-p', '127.0.0.1::8080', `slipway-bench/hand:${version}`);
  const port = Number(docker('port', name, '8080/tcp').split(':').pop());
  return untilAnswers(port, 'localhost', version).then(() => {
    const ms = performance.now() - started;
    docker('rm', '-f', name);
    docker('rmi', `slipway-bench/hand:${version}`);
    rmSync(dir, { recursive: true, force: true });
    return ms;
  });
}

export async function deployBenchmarks() {
  const skip = await dockerUnavailable();
  if (skip) {
    line('deployments', `skipped: ${skip}`);
    return;
  }
  const git = await startGitServer();
  const { env, proxyPort } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const s = await startTestServer(env);
  const project = await createProject(s, 'Bench');
  try {
    const svc = await createService(s, project.id, { name: 'bench', repoFullName: 'acme/bench', branch: 'main', internalPort: 8080 });
    await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'bench.slipway.test' } });
    git.push('acme/bench', app('warm'));
    const warm = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment.id;
    await waitForDeployment(s, svc.id, warm);
    await byHand('warm');

    execFileSync('docker', ['network', 'create', HAND_NETWORK], { stdio: 'ignore' });
    await byHand('warm-net', HAND_NETWORK);
    const slipway: number[] = [];
    const hand: number[] = [];
    const handOnNetwork: number[] = [];
    const steps: Record<string, number>[] = [];
    for (let i = 0; i < 5; i++) {
      const version = `v${i}-${Date.now()}`;
      hand.push(await byHand(version));
      handOnNetwork.push(await byHand(`n${version}`, HAND_NETWORK));
      git.push('acme/bench', app(version));
      await drained(svc.id);
      const posted = Date.now();
      const started = performance.now();
      const id = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment.id;
      await untilAnswers(proxyPort, 'bench.slipway.test', version);
      slipway.push(performance.now() - started);
      await waitForDeployment(s, svc.id, id);
      steps.push(stepTimes(posted, (await s.call('GET', `/api/deployments/${id}/logs`)).body.logs));
    }
    const [a, b] = [median(slipway), median(hand)];
    line('deploy: POST → new version answers on its domain (median of 5)', `${a.toFixed(0)} ms`);
    line('deploy: docker build + run + first answer by hand (median of 5)', `${b.toFixed(0)} ms`);
    line('deploy overhead / ratio', `${(a - b).toFixed(0)} ms / ${(a / b).toFixed(2)}`);
    const c = median(handOnNetwork);
    line('deploy: the same by hand, run on a user-defined network like Slipway’s (median of 5)', `${c.toFixed(0)} ms`);
    line('deploy overhead / ratio against that', `${(a - c).toFixed(0)} ms / ${(a / c).toFixed(2)}`);
    line('deploy steps, from its log (medians, ms)', Object.keys(steps[0] ?? {}).map((k) => `${k} ${median(steps.map((x) => x[k]!))}`).join(', '));

    // Log latency: lines a build prints with their own clock, against when the SSE client gets them.
    const ticks = `FROM ${TEST_IMAGES.python}\nRUN for i in $(seq 1 40); do echo "tick $(date +%s%N)"; sleep 0.05; done # ${Date.now()}\nCMD ["python3", "-c", "print(1)"]\n`;
    git.push('acme/ticks', { Dockerfile: ticks });
    const ticker = await createService(s, project.id, { name: 'ticks', repoFullName: 'acme/ticks', branch: 'main', runtimeMode: 'worker' });
    const tickId = (await s.call('POST', `/api/services/${ticker.id}/deployments`)).body.deployment.id;
    const stream = await readSse(`${s.url}/api/deployments/${tickId}/stream`, s.key);
    await stream.ended;
    const latencies = stream.events
      .filter((e) => e.event === 'log' && /^tick \d+$/.test(e.data.line))
      .map((e) => e.at - Number(BigInt(e.data.line.split(' ')[1]) / 1_000_000n));
    line(`build line → SSE log event (${latencies.length} lines)`, `p50 ${median(latencies)} ms, p99 ${percentile(latencies, 99)} ms`);

    // The CLI: `slipway deploy` to the first log line on screen, the API's POST to the first `log` event beside it.
    const cli: { firstLine: number; exit: number; code: number | null }[] = [];
    const api: number[] = [];
    for (let i = 0; i < 5; i++) {
      git.push('acme/bench', app(`cli-${i}-${Date.now()}`));
      cli.push(await cliDeploy(s.url, s.key, svc.id));
      git.push('acme/bench', app(`api-${i}-${Date.now()}`));
      const posted = Date.now();
      const id = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment.id;
      const events = await readSse(`${s.url}/api/deployments/${id}/stream`, s.key);
      await events.ended;
      const first = events.events.find((e) => e.event === 'log' || (e.event === 'snapshot' && e.data.length > 0));
      api.push((first?.at ?? NaN) - posted);
    }
    line('`slipway deploy` → first log line on screen (median of 5)', `${median(cli.map((r) => r.firstLine)).toFixed(0)} ms (exit codes ${[...new Set(cli.map((r) => r.code))].join(', ')})`);
    line('API: POST …/deployments → first log event on the stream (median of 5)', `${median(api).toFixed(0)} ms`);
    line('`slipway deploy` → exit after the deployment succeeded (median of 5)', `${median(cli.map((r) => r.exit)).toFixed(0)} ms`);

    // Requests failing while a web service is redeployed under steady load, on its host port and domain.
    let failed = 0;
    let total = 0;
    for (let i = 0; i < 3; i++) {
      const version = `load-${i}-${Date.now()}`;
      git.push('acme/bench', app(version));
      const direct = steadyLoad(svc.hostPort, 'localhost');
      const viaDomain = steadyLoad(proxyPort, 'bench.slipway.test');
      const id = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment.id;
      await waitForDeployment(s, svc.id, id);
      await new Promise((r) => setTimeout(r, 2000));
      const results = [...(await direct.stop()), ...(await viaDomain.stop())];
      total += results.length;
      failed += results.filter((r) => r.status !== 200).length;
    }
    line('requests failed during 3 redeploys under steady load', `${failed} of ${total}`);
  } finally {
    await s.close();
    await removeProjectLeftovers(project.id);
    await git.close();
    try {
      execFileSync('docker', ['network', 'rm', HAND_NETWORK], { stdio: 'ignore' });
    } catch {
      // Not created (the bench failed before) or already gone.
    }
  }
}
