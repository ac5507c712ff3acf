import { spawn } from 'node:child_process';
import { createServer, connect, type Socket } from 'node:net';
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

/** A TCP relay to the Postgres server that can go silent, as a network that drops packets does. */
async function silentableRelay(target: URL): Promise<{ url: string; silence(): void; close(): void }> {
  const sockets: Socket[] = [];
  let silent = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.push(client, upstream);
    client.on('data', (chunk) => silent || upstream.write(chunk));
    upstream.on('data', (chunk) => silent || client.write(chunk));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    silence: () => (silent = true),
    close() {
      sockets.forEach((s) => s.destroy());
      server.close();
    },
  };
}

t.test('a Slipway whose lock connection goes silent stops within seconds', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  const relay = await silentableRelay(new URL(db.url));
  t.teardown(() => relay.close());
  const dir = dataDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const server = await spawnServe(dir, { DATABASE_URL: relay.url, SLIPWAY_LOG: 'json' }, 90_000);
  t.teardown(() => server.child.kill('SIGKILL'));
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));

  relay.silence();
  const started = Date.now();
  const timeout = setTimeout(() => server.child.kill('SIGKILL'), 60_000);
  t.equal(await exited, 1, 'the process ends with an error');
  clearTimeout(timeout);
  t.ok(Date.now() - started < 30_000, 'within the heartbeat and its timeout');
  t.match(server.logs(), /lost the installation lock/);
});
