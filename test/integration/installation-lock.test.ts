import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { cliArgs, root, spawnServe } from '../helpers/cli-process.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { startTestServer } from '../helpers/test-server.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'slipway-installation-'));

/** `slipway serve` that is expected to refuse: its exit code and what it wrote. */
function serveRefused(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dir = dataDir();
  const child = spawn(process.execPath, [...cliArgs, 'serve'], {
    cwd: root,
    env: { ...process.env, SLIPWAY_PROXY: 'off', SLIPWAY_DATA_DIR: dir, SLIPWAY_PORT: '0', ...env },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stderr });
    }),
  );
}

async function lockHolderBackend(url: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query<{ pid: number }>(`select pid from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`);
  await c.end();
  return rows.map((r) => r.pid);
}

t.test('two Slipways on one Postgres installation: the second refuses to start and says who runs it', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  const first = await startTestServer({ DATABASE_URL: db.url });
  t.teardown(() => first.close());

  const rival = await serveRefused({ DATABASE_URL: db.url });
  t.equal(rival.code, 1, 'exits non-zero');
  t.match(rival.stderr, `another Slipway process holds this installation: pid ${process.pid} on host ${hostname()}`);
  t.equal((await first.call('GET', '/api/projects')).status, 200, 'the first one serves on');

  const other = await freshDatabase(serverUrl!);
  t.teardown(() => other.drop());
  const elsewhere = await startTestServer({ DATABASE_URL: other.url });
  t.equal((await elsewhere.call('GET', '/api/projects')).status, 200, 'another installation on the same server is not held by it');
  await elsewhere.close();
});

t.test('a Slipway that loses its lock connection stops, and the next one takes over', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  const dir = dataDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const server = await spawnServe(dir, { DATABASE_URL: db.url, SLIPWAY_LOG: 'json' }, 90_000);
  t.teardown(() => server.child.kill('SIGKILL'));
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));

  const holders = await lockHolderBackend(db.url);
  t.equal(holders.length, 1, 'one session holds the lock');
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query('select pg_terminate_backend($1)', [holders[0]]);
  await admin.end();

  t.equal(await exited, 1, 'the process ends with an error');
  t.match(server.logs(), /"level":"error".*lost the installation lock/, 'and says why, loudly');

  const next = await spawnServe(dir, { DATABASE_URL: db.url }, 90_000);
  t.teardown(() => next.child.kill('SIGKILL'));
  t.match(next.url, /^http:/, 'a new process runs the installation');
});
