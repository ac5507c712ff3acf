import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { line } from './print.js';
import { rssMb } from './rss.js';

type StartServer = (dataDir: string, env?: Record<string, string>) => Promise<{ child: ChildProcess; url: string }>;


/** The OpenAPI document: its size, the first answer (it is built then), later answers, and what it costs in memory. */
export async function openApiBenchmarks(startServer: StartServer) {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-openapi-'));
  const { child, url } = await startServer(dataDir);
  try {
    await new Promise((r) => setTimeout(r, 5000));
    const before = rssMb(child.pid!);
    const start = performance.now();
    const body = await (await fetch(`${url}/api/openapi.json`)).text();
    line('GET /api/openapi.json, first answer (document built)', `${(performance.now() - start).toFixed(0)} ms`);
    const doc = JSON.parse(body) as { paths: Record<string, object>; components: { schemas: object } };
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    line('OpenAPI document size', `${(body.length / 1024).toFixed(1)} kB, ${operations} operations, ${Object.keys(doc.components.schemas).length} named schemas`);
    const result = await autocannon({ url: `${url}/api/openapi.json`, connections: 4, duration: 5 });
    line('GET /api/openapi.json, 4 conns: p50 / p99', `${result.latency.p50} ms / ${result.latency.p99} ms (${Math.round(result.requests.average)} req/s, ${result.errors + result.non2xx} errors)`);
    await new Promise((r) => setTimeout(r, 5000));
    line('RSS before / after serving the document', `${before.toFixed(0)} MB / ${rssMb(child.pid!).toFixed(0)} MB`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
