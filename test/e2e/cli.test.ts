import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cliArgs, root, spawnServe } from '../helpers/cli-process.js';

function cli(dataDir: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [...cliArgs, ...args], {
    cwd: root,
    env: { ...process.env, SLIPWAY_DATA_DIR: dataDir, SLIPWAY_PROXY: 'off' },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, lastLine: r.stdout.trim().split('\n').pop() ?? '' };
}

const serve = (dataDir: string) => spawnServe(dataDir);

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

async function call(url: string, key: string, method: string, path: string, body?: unknown) {
  const r = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: (await r.json()) as any };
}

t.test('first start writes a bootstrap key to a 0600 file and logs only its path', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // What a process killed with SIGKILL leaves behind: a lock naming a pid that no longer runs.
  writeFileSync(join(dir, 'slipway.lock'), '999999');
  const server = await serve(dir);
  const path = join(dir, 'bootstrap-key');
  const key = readFileSync(path, 'utf8').trim();
  t.equal(statSync(path).mode & 0o777, 0o600);
  t.match(server.logs(), path);
  t.notMatch(server.logs(), key, 'the key itself is never logged');
  t.equal((await call(server.url, key, 'POST', '/api/projects', { name: 'Boot' })).status, 200, 'it is an all-project write key');

  const second = cli(dir, 'keys', 'list');
  t.equal(second.status, 0, 'the CLI reaches the running server through its socket');
  t.match(second.stdout, /bootstrap/);

  const rival = spawnSync(process.execPath, [...cliArgs, 'serve'], {
    cwd: root,
    env: { ...process.env, SLIPWAY_DATA_DIR: dir, SLIPWAY_PORT: '0', SLIPWAY_PROXY: 'off' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  t.not(rival.status, 0, 'a second server on the same data directory is refused');
  t.match(rival.stderr, /in use by process/);

  t.equal(await stop(server.child), 0);
  const restarted = await serve(dir);
  t.notMatch(restarted.logs(), 'created the first API key', 'no second bootstrap key');
  t.equal((await call(restarted.url, key, 'GET', '/api/projects')).body.projects.length, 1, 'data survives a restart');
  await stop(restarted.child);
});

t.test('keys create, list and revoke; rebuild, status and events from the CLI', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // Only serve makes an installation: the first start, then keys created offline.
  await stop((await serve(dir)).child);

  const admin = cli(dir, 'keys', 'create', '--name', 'admin', '--access', 'write');
  t.equal(admin.status, 0, admin.stderr);
  t.match(admin.lastLine, /^slw_[A-Za-z0-9_-]{43}$/, 'the key alone on the last line');
  t.match(admin.stdout, /projects: all/);
  t.equal(cli(dir, 'keys', 'create', '--name', 'x').status, 2, 'usage errors exit 2');

  const server = await serve(dir);
  t.teardown(() => server.child.kill());
  const a = (await call(server.url, admin.lastLine, 'POST', '/api/projects', { name: 'A' })).body.project;
  const b = (await call(server.url, admin.lastLine, 'POST', '/api/projects', { name: 'B' })).body.project;

  const scoped = cli(dir, 'keys', 'create', '--name', 'team-a', '--access', 'read', '--project', a.id);
  t.equal(scoped.status, 0, scoped.stderr);
  const visible = await call(server.url, scoped.lastLine, 'GET', '/api/projects');
  t.same(visible.body.projects.map((p: { id: string }) => p.id), [a.id]);
  t.equal((await call(server.url, scoped.lastLine, 'GET', `/api/projects/${b.slug}`)).status, 404);
  t.equal((await call(server.url, scoped.lastLine, 'POST', '/api/projects', { name: 'C' })).status, 403);
  t.equal(cli(dir, 'keys', 'create', '--name', 'bad', '--access', 'read', '--project', 'nope').status, 1, 'unknown projects are refused');

  const listed = cli(dir, 'keys', 'list').stdout;
  const scopedId = listed.split('\n').find((l) => l.endsWith('team-a'))!.split('\t')[0]!;
  t.equal(cli(dir, 'keys', 'revoke', scopedId).status, 0);
  t.equal((await call(server.url, scoped.lastLine, 'GET', '/api/projects')).status, 401, 'revoked at once');
  t.match(cli(dir, 'keys', 'list').stdout, /revoked/);

  const rebuilt = cli(dir, 'projections', 'rebuild');
  t.equal(rebuilt.status, 0, rebuilt.stderr);
  t.match(JSON.parse(rebuilt.lastLine), { events: Number });
  t.equal((await call(server.url, admin.lastLine, 'GET', '/api/projects')).body.projects.length, 2, 'the API still answers after a rebuild');

  const status = cli(dir, 'projections', 'status');
  t.equal(status.status, 0, status.stderr);
  t.match(status.stdout, /^READ MODEL\s+VERSION\s+LAG\s+PARKED\s+STATE\n/, 'a table, not a line of JSON');
  t.match(status.stdout, /\nprojects\s+v\d+\s+up to date\s+0\s+live\n/);
  t.match(status.stdout, /\nPROCESS MANAGER\s+LAG\s+STATE\n/);
  t.match(status.stdout, /\ndocker\s+(ok|FAILING)/);
  t.match(JSON.parse(cli(dir, 'projections', 'status', '--json').stdout), { projectors: Array, docker: { ok: Boolean } }, '--json: the health answer');
  await stop(server.child);

  const offline = cli(dir, 'projections', 'rebuild');
  t.equal(offline.status, 0, 'rebuild also runs with the server stopped');
  const rawLog = (name: string) =>
    spawnSync(process.execPath, [...cliArgs, name, '--data-dir', dir, '--limit', '3'], { cwd: root, env: { ...process.env, SLIPWAY_DATA_DIR: '', SLIPWAY_URL: 'http://127.0.0.1:9', SLIPWAY_PROXY: 'off' }, encoding: 'utf8' });
  const audit = rawLog('audit');
  t.equal(audit.status, 0, audit.stderr);
  const lines = audit.stdout.trim().split('\n').map((l) => JSON.parse(l));
  t.equal(lines.length, 3, 'audit --data-dir: the raw log of that directory, no server needed');
  const former = rawLog('events');
  t.equal(former.stdout, audit.stdout, 'the former name `events` does the same');
  t.match(former.stderr, /`events` is now `audit`/);
  t.match(lines[0], { type: 'ApiKeyCreated', actor: 'system', data: { secretHash: '[redacted]' } });
});

t.test('admin commands refuse a directory without an installation and create nothing', async (t) => {
  const cwd = mkdtempSync(join(tmpdir(), 'slipway-elsewhere-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const run = (env: Record<string, string>, ...args: string[]) => {
    const environment: Record<string, string | undefined> = { ...process.env, SLIPWAY_PROXY: 'off', ...env };
    if (!('SLIPWAY_DATA_DIR' in env)) delete environment.SLIPWAY_DATA_DIR;
    return spawnSync(process.execPath, [...cliArgs, ...args], { cwd, env: environment, encoding: 'utf8' });
  };
  for (const args of [['projections', 'status'], ['keys', 'create', '--name', 'k', '--access', 'write'], ['keys', 'list'], ['projections', 'rebuild']]) {
    const r = run({}, ...args);
    t.equal(r.status, 1, `${args.join(' ')} exits non-zero`);
    t.match(r.stderr, `no Slipway data directory at ${join(cwd, '.slipway')} (the default ./.slipway of the current directory): point at the installation with --data-dir DIR or SLIPWAY_DATA_DIR`);
    t.same(readdirSync(cwd), [], `${args.join(' ')} creates nothing`);
  }
  const missing = join(cwd, 'nope');
  const viaEnv = run({ SLIPWAY_DATA_DIR: missing }, 'keys', 'list');
  t.equal(viaEnv.status, 1);
  t.match(viaEnv.stderr, `no Slipway data directory at ${missing} (from SLIPWAY_DATA_DIR)`);
  const viaOption = run({}, '--data-dir', cwd, 'projections', 'status');
  t.equal(viaOption.status, 1);
  t.match(viaOption.stderr, `${cwd} (given with --data-dir) holds no Slipway installation`);
  t.same(readdirSync(cwd), [], 'an existing empty directory is left empty');
  t.equal(existsSync(missing), false);
});
