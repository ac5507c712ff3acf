import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { holdBodies, hookTargets, percentile, signedPing } from './hook-load.js';
import { line } from './print.js';

type StartServer = (dataDir: string, env?: Record<string, string>) => Promise<{ child: ChildProcess; url: string }>;

/** CPU time a process has used so far (user + system), in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const deepBody = () => `${'['.repeat(500_000)}${']'.repeat(500_000)}`;

/** A hostile client as its own process, so its sending does not share a thread with the measurement. */
function hostile(url: string, connections: number, args: string[]) {
  return spawn('node_modules/.bin/autocannon', ['-c', String(connections), '-d', '12', '--json', ...args, url], { stdio: ['ignore', 'pipe', 'ignore'] });
}

async function cpuPerRequest(pid: number, url: string, n: number, init: RequestInit): Promise<number> {
  const before = cpuMs(pid);
  for (let i = 0; i < n; i++) await fetch(url, init).then((r) => r.arrayBuffer());
  return (cpuMs(pid) - before) / n;
}

/** What anonymous and hostile requests cost: the refusal of a deep body, and /healthz while clients attack. */
export async function securityBenchmarks(startServer: StartServer) {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-security-'));
  const { child, url } = await startServer(dataDir);
  const bodyFile = join(dataDir, 'deep.json');
  try {
    const key = readFileSync(join(dataDir, 'bootstrap-key'), 'utf8').trim();
    const body = deepBody();
    writeFileSync(bodyFile, body);
    const json = { 'content-type': 'application/json' };
    await cpuPerRequest(child.pid!, `${url}/api/projects`, 20, { method: 'POST', headers: { ...json, authorization: 'Bearer slw_wrong' }, body });
    const anonymous = await cpuPerRequest(child.pid!, `${url}/api/projects`, 100, { method: 'POST', headers: json, body });
    line('refusing a 1 MB deep body without a key (server CPU)', `${anonymous.toFixed(2)} ms per request`);
    const keyed = await cpuPerRequest(child.pid!, `${url}/api/projects`, 100, { method: 'POST', headers: { ...json, authorization: `Bearer ${key}` }, body });
    line('refusing a 1 MB deep body with a valid key (server CPU)', `${keyed.toFixed(2)} ms per request`);

    const quiet = await autocannon({ url: `${url}/healthz`, connections: 1, overallRate: 100, duration: 5 });
    line('/healthz at 100 req/s, quiet: p50 / p99', `${quiet.latency.p50} ms / ${quiet.latency.p99} ms`);
    const attackers = [
      hostile(`${url}/api/projects`, 2, ['-m', 'POST', '-H', 'content-type=application/json', '-H', 'authorization=Bearer slw_wrong', '-i', bodyFile]),
      hostile(`${url}/api/projects`, 2, ['-H', 'authorization=Bearer slw_guess']),
    ];
    let attacked = 0;
    for (const a of attackers) {
      let out = '';
      a.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      a.once('exit', () => {
        const result = JSON.parse(out || '{}') as { requests?: { total?: number } };
        attacked += result.requests?.total ?? 0;
      });
    }
    await new Promise((r) => setTimeout(r, 1000));
    const underLoad = await autocannon({ url: `${url}/healthz`, connections: 1, overallRate: 100, duration: 8 });
    await Promise.all(attackers.map((a) => new Promise((r) => a.once('exit', r))));
    line('/healthz at 100 req/s, 4 hostile clients: p50 / p99', `${underLoad.latency.p50} ms / ${underLoad.latency.p99} ms (${underLoad.non2xx + underLoad.errors} failed)`);
    line('hostile requests answered meanwhile (deep bodies, wrong keys)', `${attacked.toLocaleString('en')} in 12 s`);

    const hooks = await hookTargets(url, key);
    const held = holdBodies(url, hooks.held.path, 20);
    await new Promise((r) => setTimeout(r, 500));
    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
      const ping = signedPing(hooks.signed.secret);
      const start = performance.now();
      const r = await fetch(`${url}${hooks.signed.path}`, { method: 'POST', headers: ping.headers, body: ping.body });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`a signed delivery got ${r.status}`);
      latencies.push(performance.now() - start);
    }
    held.forEach((socket) => socket.destroy());
    latencies.sort((a, b) => a - b);
    line('signed delivery while 20 connections hold another service’s hook: p50 / p99', `${percentile(latencies, 50).toFixed(1)} ms / ${percentile(latencies, 99).toFixed(1)} ms (target p99 < 100 ms)`);

    const forger = spawn(process.execPath, ['--import', 'tsx', 'bench/forger.ts', `${url}${hooks.held.path}`, '200', '10'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let forgedOut = '';
    forger.stdout!.on('data', (c: Buffer) => (forgedOut += c.toString()));
    await new Promise((r) => setTimeout(r, 1000));
    const forgedLoad = await autocannon({ url: `${url}/healthz`, connections: 1, overallRate: 100, duration: 8 });
    await new Promise((r) => forger.once('exit', r));
    const forged = JSON.parse(forgedOut || '{}') as { total?: number; statuses?: Record<string, number> };
    line('/healthz at 100 req/s, 200 forged deliveries/s: p50 / p99', `${forgedLoad.latency.p50} ms / ${forgedLoad.latency.p99} ms (target p99 < 50 ms; ${forgedLoad.non2xx + forgedLoad.errors} failed)`);
    line('forged deliveries answered meanwhile (401, then 429)', `${(forged.total ?? 0).toLocaleString('en')} in 10 s (${JSON.stringify(forged.statuses ?? {})})`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
