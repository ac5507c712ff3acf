import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import t from 'tap';
import { ALL_PROJECTORS } from '../projections/all.js';
import { ProjectionRunner } from '../projections/runner.js';
import { openPostgres } from '../src/db/pg-client.js';
import { openPglite } from '../src/db/pglite-client.js';
import type { SqlClient } from '../src/db/sql-client.js';
import type { EventStore } from '../src/eventstore/port.js';
import { createPostgresEventStore } from '../src/eventstore/postgres-event-store.js';
import { freshDatabase } from '../test/helpers/postgres-server.js';
import { newEvent } from '../test/helpers/new-event.js';
import { seedEvents } from '../test/helpers/seed-events.js';
import { databaseBenchmarks } from './databases.js';
import { backupBenchmarks } from './backups.js';
import { jobBenchmarks } from './jobs.js';
import { deployBenchmarks } from './deploy.js';
import { deployOnPushBenchmarks } from './deploy-on-push.js';
import { dashboardBenchmarks } from './dashboard.js';
import { rollbackBenchmarks } from './rollback.js';
import { clusterBenchmarks } from './cluster.js';
import { liveRebuildBenchmarks } from './live-rebuild.js';
import { openApiBenchmarks } from './openapi.js';
import { overviewBenchmarks } from './overview.js';
import { securityBenchmarks } from './security.js';
import { peopleBenchmarks } from './people.js';
import { writeBenchmarks } from './writes.js';
import { line } from './print.js';
import { rssMb } from './rss.js';

const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString('en')}/s`;

const event = (type: string, data: Record<string, unknown>) => newEvent(type, data, 'bench');

async function withDatabase<T>(kind: 'pglite' | 'postgres', fn: (sql: SqlClient, store: EventStore) => Promise<T>): Promise<T> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-'));
    const sql = await openPglite(join(dir, 'pg'));
    try {
      return await fn(sql, await createPostgresEventStore(sql));
    } finally {
      await sql.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const db = await freshDatabase(process.env.TEST_DATABASE_URL!);
  const sql = await openPostgres(db.url);
  try {
    return await fn(sql, await createPostgresEventStore(sql));
  } finally {
    await sql.close();
    await db.drop();
  }
}

async function appends(kind: 'pglite' | 'postgres') {
  await withDatabase(kind, async (_sql, store) => {
    const n = 2000;
    let start = performance.now();
    for (let i = 0; i < n; i++) await store.append(`bench-${i}`, [event('Bench', { i })], 'no_stream');
    line(`appends, one event each, sequential (${kind})`, rate(n, performance.now() - start));
    start = performance.now();
    for (let i = 0; i < 50; i++) await store.append(`batch-${i}`, Array.from({ length: 200 }, (_, j) => event('Bench', { j })), 'no_stream');
    line(`appends, 200 events per append (${kind})`, rate(50 * 200, performance.now() - start) + ' events');
  });
}

async function rebuild(kind: 'pglite' | 'postgres') {
  await withDatabase(kind, async (sql, store) => {
    const { events: seeded } = await seedEvents(store, 1000);
    const runner = new ProjectionRunner(sql, store, ALL_PROJECTORS);
    await runner.start();
    await runner.caughtUp();
    const start = performance.now();
    const { events } = await runner.rebuild();
    const ms = performance.now() - start;
    await runner.stop();
    line(`projection rebuild, ${seeded.toLocaleString('en')} events, ${ALL_PROJECTORS.length} read models (${kind})`, `${rate(events, ms)} (${(ms / 1000).toFixed(1)} s)`);
  });
}

async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  // The bin itself, so the server runs with the flags its shebang gives (or SLIPWAY_BENCH_NODE_FLAGS instead).
  const flags = process.env.SLIPWAY_BENCH_NODE_FLAGS;
  const [command, args] = flags === undefined ? ['dist/src/cli/main.js', ['serve']] : [process.execPath, [...flags.split(' ').filter(Boolean), 'dist/src/cli/main.js', 'serve']];
  const child = spawn(command, args, {
    env: { ...process.env, SLIPWAY_DATA_DIR: dataDir, SLIPWAY_PORT: '0', SLIPWAY_HOST: '127.0.0.1', SLIPWAY_PROXY: 'off', SLIPWAY_HTTPS: 'off', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let logs = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      logs += c.toString();
      const m = /"url":"([^"]+)"/.exec(logs);
      if (m) resolve(m[1]!);
    });
    child.once('exit', () => reject(new Error(logs)));
  });
  return { child, url };
}

async function load(opts: autocannon.Options) {
  const result = await autocannon({ duration: 10, ...opts });
  return { p50: result.latency.p50, p99: result.latency.p99, rps: Math.round(result.requests.average), errors: result.errors + result.non2xx };
}

async function http() {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-http-'));
  const { child, url } = await startServer(dataDir);
  try {
    await new Promise((r) => setTimeout(r, 3000));
    line('RSS 3 s after start, empty (PGlite)', `${rssMb(child.pid!).toFixed(0)} MB`);
    await new Promise((r) => setTimeout(r, 17_000));
    line('idle RSS 20 s after start, empty (PGlite)', `${rssMb(child.pid!).toFixed(0)} MB`);
    const key = readFileSync(join(dataDir, 'bootstrap-key'), 'utf8').trim();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const r = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
      return (await r.json()) as any;
    };
    const seedStart = performance.now();
    for (let p = 0; p < 100; p++) {
      const { project } = await post('/api/projects', { name: `Project ${p}`, description: 'bench' });
      await Promise.all(
        Array.from({ length: 10 }, async (_, s) => {
          await post(`/api/projects/${project.id}/services`, { name: `svc${s}`, repoFullName: 'acme/app', branch: 'main' });
        }),
      );
    }
    line('seeding 100 projects x 10 services over HTTP', `${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, 20_000));
    line('idle RSS with 100 projects x 10 services (PGlite)', `${rssMb(child.pid!).toFixed(0)} MB`);
    // The first answer after a change is built from the read models; later ones come from the cache.
    const cold = performance.now();
    await fetch(`${url}/api/projects`, { headers }).then((r) => r.arrayBuffer());
    line('GET /api/projects, first answer (cache cold)', `${(performance.now() - cold).toFixed(0)} ms`);

    for (const connections of [4, 10]) {
      const list = await load({ url: `${url}/api/projects`, headers, connections, overallRate: 200 });
      line(`GET /api/projects (1000 services, 830 kB) at 200 req/s, ${connections} conns: p50 / p99`, `${list.p50} ms / ${list.p99} ms (${list.rps} req/s, ${list.errors} errors)`);
    }
    const listMax = await load({ url: `${url}/api/projects`, headers, connections: 10 });
    line('GET /api/projects, as fast as it answers', `${listMax.rps} req/s (p99 ${listMax.p99} ms)`);
    await new Promise((r) => setTimeout(r, 20_000));
    line('RSS after the load, idle 20 s (PGlite)', `${rssMb(child.pid!).toFixed(0)} MB`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// The test helpers some benches share load tap, whose root test would time out after 30 s and print a failure.
t.setTimeout(0);
const only = process.argv[2];
console.log(`Slipway benchmarks, ${new Date().toISOString()}, node ${process.version}`);
if (!only || only === 'appends') for (const kind of ['pglite', 'postgres'] as const) await appends(kind);
if (!only || only === 'rebuild') for (const kind of ['pglite', 'postgres'] as const) await rebuild(kind);
if (!only || only === 'http') await http();
if (!only || only === 'writes') await writeBenchmarks(startServer);
if (!only || only === 'live-rebuild') await liveRebuildBenchmarks(startServer);
if (!only || only === 'deploy') await deployBenchmarks();
if (!only || only === 'rollback') await rollbackBenchmarks();
if (!only || only === 'push') await deployOnPushBenchmarks();
if (!only || only === 'dashboard') await dashboardBenchmarks();
if (!only || only === 'databases') await databaseBenchmarks(startServer);
if (!only || only === 'backups') await backupBenchmarks(startServer);
if (!only || only === 'jobs') await jobBenchmarks();
if (!only || only === 'openapi') await openApiBenchmarks(startServer);
if (!only || only === 'overview') await overviewBenchmarks(startServer);
if (!only || only === 'security') await securityBenchmarks(startServer);
if (!only || only === 'people') await peopleBenchmarks(startServer);
if (!only || only === 'cluster') await clusterBenchmarks();
