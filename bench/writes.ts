import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freshDatabase } from '../test/helpers/postgres-server.js';
import { line } from './print.js';


type StartServer = (dataDir: string, env?: Record<string, string>) => Promise<{ child: ChildProcess; url: string }>;

/** The write path as a client sees it: append, projection, answer (settled), on PGlite and on a Postgres server. */
export async function writeBenchmarks(startServer: StartServer) {
  await writesOn('PGlite', startServer, {});
  const base = process.env.TEST_DATABASE_URL;
  if (!base) return line('env upserts on a Postgres server', 'skipped: TEST_DATABASE_URL is not set');
  const db = await freshDatabase(base);
  try {
    await writesOn('Postgres', startServer, { DATABASE_URL: db.url });
  } finally {
    await db.drop();
  }
}

async function writesOn(kind: string, startServer: StartServer, env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-writes-'));
  const { child, url } = await startServer(dataDir, env);
  try {
    const key = readFileSync(join(dataDir, 'bootstrap-key'), 'utf8').trim();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => (await (await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { project?: { id: string }; service?: { id: string } };
    const { project } = await post('/api/projects', { name: 'Writes', description: 'bench' });
    const services = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => (await post(`/api/projects/${project!.id}/services`, { name: `w${i}`, repoFullName: 'acme/app', branch: 'main' })).service!.id),
    );
    const upserts = (connections: number, sameService: boolean) => {
      let n = 0;
      return autocannon({
        url,
        connections,
        duration: 10,
        headers,
        requests: [{ method: 'POST', setupRequest: (r) => ({ ...r, path: `/api/services/${services[sameService ? 0 : n++ % services.length]}/env`, body: JSON.stringify({ key: 'BENCH_KEY', value: `value ${n}` }) }) }],
      });
    };
    for (const [connections, same] of [[1, true], [4, true], [4, false]] as const) {
      const r = await upserts(connections, same);
      const what = connections === 1 ? '1 client' : `${connections} clients, ${same ? 'one service' : 'four services'}`;
      line(`POST env upsert, ${what} (${kind}): p50 / p99`, `${r.latency.p50} ms / ${r.latency.p99} ms (${Math.round(r.requests.average)} req/s, ${r.errors + r.non2xx} errors)`);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
