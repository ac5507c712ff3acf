import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

t.test('keys create, list and revoke; rebuild and events from the CLI', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  const admin = cli(dir, 'keys', 'create', '--name', 'admin', '--access', 'write');
  t.equal(admin.status, 0, admin.stderr);
  t.match(admin.lastLine, /^slw_[A-Za-z0-9_-]{43}$/, 'the key alone on the last line');
  t.match(admin.stdout, /projects: all/);
  t.equal(cli(dir, 'keys', 'create', '--name', 'x').status, 2, 'usage errors exit 2');

  const server = await serve(dir);
  t.teardown(() => server.child.kill());
  t.notMatch(server.logs(), 'created the first API key', 'no bootstrap key when a key exists');
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
  await stop(server.child);

  const offline = cli(dir, 'projections', 'rebuild');
  t.equal(offline.status, 0, 'rebuild also runs with the server stopped');
  const events = cli(dir, 'events', '--limit', '3');
  const lines = events.stdout.trim().split('\n').map((l) => JSON.parse(l));
  t.equal(lines.length, 3);
  t.match(lines[0], { type: 'ApiKeyCreated', actor: 'cli', data: { secretHash: '[redacted]' } });
});
