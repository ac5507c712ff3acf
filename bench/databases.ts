import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { docker, removeProjectLeftovers } from '../test/helpers/docker.js';
import { claimHostPorts } from '../test/helpers/host-ports.js';
import { DB_IMAGE_ENV, DB_TEST_IMAGES, dbImagesUnavailable } from '../test/helpers/engine-containers.js';
import { median } from './deploy.js';
import { bootstrapClient } from './bootstrap-client.js';
import { line } from './print.js';
import { rssMb } from './rss.js';

type StartServer = (dataDir: string, env?: Record<string, string>) => Promise<{ child: ChildProcess; url: string }>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Postgres started with `docker run` and asked its first query by hand: what a deployment is compared with. */
async function byHand(): Promise<number> {
  const name = `slipway-bench-pg-${process.pid}`;
  const started = performance.now();
  execFileSync('docker', ['run', '-d', '--name', name, '-e', 'POSTGRES_PASSWORD=bench', '-p', '127.0.0.1::5432', DB_TEST_IMAGES.postgres], { stdio: 'ignore' });
  try {
    const port = Number(execFileSync('docker', ['port', name, '5432/tcp'], { encoding: 'utf8' }).split('\n')[0]!.split(':').pop());
    for (;;) {
      const client = new Client({ host: '127.0.0.1', port, user: 'postgres', password: 'bench', database: 'postgres', connectionTimeoutMillis: 1000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('select 1');
        await client.end();
        return performance.now() - started;
      } catch {
        await client.end().catch(() => undefined);
        await sleep(50);
      }
    }
  } finally {
    execFileSync('docker', ['rm', '-f', '-v', name], { stdio: 'ignore' });
  }
}

/** Database services through the API: browsing a big table, time to a first query, memory with five of them. */
export async function databaseBenchmarks(startServer: StartServer) {
  const skip = await dbImagesUnavailable();
  if (skip) return line('database services', `skipped: ${skip}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-db-'));
  const { child, url } = await startServer(dataDir, { ...DB_IMAGE_ENV, SLIPWAY_HOST_PORT_RANGE: claimHostPorts().range });
  let projectId: string | null = null;
  try {
    const { headers, call } = bootstrapClient(dataDir, url);
    const project = (await call('POST', '/api/projects', { name: 'Databases', description: 'bench' })).body.project;
    projectId = project.id as string;
    const database = async (name: string, engine: string) =>
      (await call('POST', `/api/projects/${projectId}/services`, { name, repoFullName: `database:${engine}`, repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] })).body.service.id as string;
    const untilQuery = async (serviceId: string, sql: string) => {
      for (;;) {
        if ((await call('POST', `/api/services/${serviceId}/database/query`, { sql })).status === 200) return;
        await sleep(50);
      }
    };

    // The project's first database also makes its network and the installation's CA: measured on its own.
    // Then five of each, one after the other (initdb's own time varies by a few hundred ms from run to run).
    const deployed: number[] = [];
    const hand: number[] = [];
    const services: string[] = [];
    for (let i = 0; i < 6; i++) {
      const id = await database(`pg${i}`, 'postgres');
      services.push(id);
      const started = performance.now();
      await call('POST', `/api/services/${id}/deployments`);
      await untilQuery(id, 'select 1');
      deployed.push(performance.now() - started);
      hand.push(await byHand());
    }
    line("POST deployments → first query, the project's first Postgres (network and CA made)", `${(deployed[0]! / 1000).toFixed(2)} s; docker run + first query by hand ${(hand[0]! / 1000).toFixed(2)} s`);
    const [a, b] = [median(deployed.slice(1)), median(hand.slice(1))];
    line('POST deployments → first query (Postgres, median of the next 5)', `${(a / 1000).toFixed(2)} s; docker run + first query by hand ${(b / 1000).toFixed(2)} s (${(a / b).toFixed(2)}×)`);
    const pg = services[0]!;
    for (const extra of services.slice(1)) await call('DELETE', `/api/services/${extra}`);

    const others = await Promise.all([database('ts', 'timeseries'), database('my', 'mysql'), database('cache', 'redis'), database('olap', 'columnar')]);
    const deployments = await Promise.all(others.map(async (id) => ({ id, deployment: (await call('POST', `/api/services/${id}/deployments`)).body.deployment.id as string })));
    for (const { id, deployment } of deployments) {
      for (;;) {
        const listed = (await call('GET', `/api/services/${id}/deployments`)).body.deployments as { id: string; status: string }[];
        const status = listed.find((d) => d.id === deployment)?.status;
        if (status === 'succeeded') break;
        if (status === 'failed' || status === 'aborted') throw new Error(`deployment of ${id} ${status}`);
        await sleep(250);
      }
    }
    // Idle: the drivers' process exits once nothing was open for a minute (twice over: the connections close
    // first), and the store sleeps after a minute without requests (SLIPWAY_STORE_SLEEP_AFTER).
    await sleep(130_000);
    const driversAlive = execFileSync('sh', ['-c', `pgrep -P ${child.pid} || true`], { encoding: 'utf8' }).trim() !== '';
    line('idle RSS with five database services deployed (PGlite, store asleep)', `${rssMb(child.pid!).toFixed(0)} MB${driversAlive ? " (the drivers' process is still running)" : ''}`);
    const waking = performance.now();
    await call('GET', `/api/projects/${projectId}`);
    line('the first request after the sleep (it wakes the store)', `${(performance.now() - waking).toFixed(0)} ms`);
    const again = performance.now();
    await call('GET', `/api/projects/${projectId}`);
    line('the same request once awake', `${(performance.now() - again).toFixed(0)} ms`);
    await sleep(5_000);
    line('RSS with the store awake, 5 s later', `${rssMb(child.pid!).toFixed(0)} MB`);

    const seeded = performance.now();
    await call('POST', `/api/services/${pg}/database/query`, {
      sql: "create table big (id bigserial primary key, name text not null, n integer not null); insert into big (name, n) select 'row ' || g, g from generate_series(1, 1000000) g; analyze big",
    });
    line('seeding 1,000,000 rows through the SQL endpoint', `${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    // Steady state: the first requests open the pool's connections (TLS and SCRAM each, ≈ 0.1 s) and read the
    // catalogue; four at a time, as the load comes, or the pool would still be opening them while measured.
    for (let i = 0; i < 20; i++) {
      await Promise.all([0, 1, 2, 3].map((j) => call('GET', `/api/services/${pg}/database/rows?table=public.big&limit=100&offset=${(i * 4 + j) * 100}`)));
    }
    let page = 0;
    const rows = await autocannon({
      url,
      connections: 4,
      overallRate: 100,
      duration: 10,
      headers,
      requests: [{ method: 'GET', setupRequest: (r) => ({ ...r, path: `/api/services/${pg}/database/rows?table=public.big&limit=100&offset=${(page++ % 10) * 100}` }) }],
    });
    line('GET rows, 1,000,000-row table, 100 req/s: p50 / p99', `${rows.latency.p50} ms / ${rows.latency.p99} ms (${rows.errors + rows.non2xx} errors)`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    if (projectId) {
      await removeProjectLeftovers(projectId);
      for (const v of (await docker.listVolumes({ filters: { label: [`slipway.project=${projectId}`] } })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => undefined);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
