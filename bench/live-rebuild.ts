import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openPglite } from '../src/db/pglite-client.js';
import { createPostgresEventStore } from '../src/eventstore/postgres-event-store.js';
import { seedEvents } from '../test/helpers/seed-events.js';
import { line } from './print.js';


interface Rebuilt {
  events: number;
  ms: number;
  swapMs: number;
}

/** `slipway projections rebuild` as an operator runs it: through the server when one runs, else on its own. */
function rebuildWithCli(dataDir: string): Promise<Rebuilt> {
  return new Promise((resolve, reject) => {
    const child = spawn('dist/src/cli/main.js', ['projections', 'rebuild'], { env: { ...process.env, SLIPWAY_DATA_DIR: dataDir, SLIPWAY_LOG: 'silent' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as Rebuilt) : reject(new Error(err))));
  });
}

/** Blue-green rebuild figures: throughput while serving against the same rebuild with no server, and what clients see meanwhile. */
export async function liveRebuildBenchmarks(startServer: (dataDir: string) => Promise<{ child: import('node:child_process').ChildProcess; url: string }>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-rebuild-'));
  try {
    const sql = await openPglite(join(dataDir, 'pgdata'));
    const { events, slugs } = await seedEvents(await createPostgresEventStore(sql), 200);
    await sql.close();
    const offline = await rebuildWithCli(dataDir);
    line(`rebuild with no server, ${events.toLocaleString('en')} events (PGlite)`, `${Math.round((offline.events / offline.ms) * 1000)} events/s`);

    const { child, url } = await startServer(dataDir);
    try {
      const key = readFileSync(join(dataDir, 'bootstrap-key'), 'utf8').trim();
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      // The longest wait between two answers during the rebuild, for a client asking again as soon as it has one.
      let stop = false;
      let rebuilding = false;
      let longestGap = 0;
      let failed = 0;
      const prober = (async () => {
        let last = performance.now();
        while (!stop) {
          const r = await fetch(`${url}/api/projects/${slugs[0]}`, { headers }).catch(() => null);
          if (!r || r.status !== 200) failed++;
          await r?.arrayBuffer();
          const now = performance.now();
          if (rebuilding) longestGap = Math.max(longestGap, now - last);
          last = now;
        }
      })();
      const writer = (async () => {
        for (let i = 0; !stop; i++) {
          const r = await fetch(`${url}/api/projects`, { method: 'POST', headers, body: JSON.stringify({ name: `During ${i}` }) }).catch(() => null);
          if (!r || r.status !== 200) failed++;
          await r?.arrayBuffer();
          await new Promise((res) => setTimeout(res, 100));
        }
      })();
      let done!: (result: autocannon.Result) => void;
      const finished = new Promise<autocannon.Result>((res) => (done = res));
      const reads = autocannon({ url: `${url}/api/projects`, headers, connections: 4, overallRate: 20, duration: 600 }, (_error, result) => done(result));
      await new Promise((res) => setTimeout(res, 2000));
      rebuilding = true;
      const serving = await rebuildWithCli(dataDir);
      rebuilding = false;
      reads.stop();
      const result = await finished;
      stop = true;
      await Promise.all([prober, writer]);
      line(`rebuild while serving (reads, writes), same events (PGlite)`, `${Math.round((serving.events / serving.ms) * 1000)} events/s (${(serving.events / serving.ms / (offline.events / offline.ms)).toFixed(2)}x the rebuild with no server)`);
      line('live applies held for the swap', `${serving.swapMs} ms`);
      line('longest gap between answers during the rebuild', `${Math.round(longestGap)} ms (${failed} failed answers)`);
      line('GET /api/projects (2000 services) at 20 req/s during it: p50 / p99', `${result.latency.p50} ms / ${result.latency.p99} ms (${result.non2xx + result.errors} errors)`);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
