import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cliArgs, root } from '../helpers/cli-process.js';
import { removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// Deployments, rollbacks and a CLI process per step: longer than tap's 180 s per file on a busy machine.
t.setTimeout(360_000);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `slipway …` as a user runs it, against the test server; `during` may act on the running process. */
function slipway(env: Record<string, string>, args: string[], during?: (child: ReturnType<typeof spawn>, output: () => string) => Promise<void>): Promise<Run> {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  if (!during) child.stdin!.end();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return (async () => {
    if (during) await during(child, () => stdout + stderr);
    return { status: await exited, stdout, stderr };
  })();
}

const until = async (what: string, check: () => boolean, ms = 90_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`waited ${ms / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

t.test('the CLI drives a real server over HTTP', { skip: await requireDocker() }, async (t) => {
  const s: TestServer = await startTestServer({ SLIPWAY_DOCKER_SOCKET: '/var/run/docker.sock', SLIPWAY_WORKER_SETTLE: '20' });
  t.teardown(() => s.close());
  const config = mkdtempSync(join(tmpdir(), 'slipway-cli-config-'));
  // Only what `slipway login` saved: no SLIPWAY_KEY in the environment.
  const env = { XDG_CONFIG_HOME: config, SLIPWAY_URL: '', SLIPWAY_KEY: '' };
  const cli = (...args: string[]) => slipway(env, args);

  await t.test('login checks the key and saves it with mode 0600; a wrong key is refused with the API’s message', async (t) => {
    const refused = await slipway(env, ['login', '--url', s.url, '--key', 'slw_wrong']);
    t.equal(refused.status, 1);
    t.match(refused.stderr, /^slipway: unknown or revoked API key \(unauthorized, HTTP 401\)/);
    const ok = await slipway(env, ['login', '--url', s.url], async (child) => {
      child.stdin!.end(`${s.key}\n`);
    });
    t.equal(ok.status, 0, ok.stderr);
    t.match(ok.stdout, /logged in to http:\/\/127\.0\.0\.1:\d+/);
    const file = join(config, 'slipway', 'credentials.json');
    t.equal(statSync(file).mode & 0o777, 0o600, 'only its owner can read it');
    t.same(JSON.parse(readFileSync(file, 'utf8')), { url: s.url, key: s.key });
  });

  const project = JSON.parse((await cli('projects', 'create', 'Cli Shop', '--json')).stdout).project as { id: string; slug: string };
  t.teardown(() => removeProjectLeftovers(project.id));

  await t.test('projects, services, variables and domains: tables for people, the exact answers with --json', async (t) => {
    t.match((await cli('projects')).stdout, /^SLUG\s+NAME\s+SERVICES\s+STATUS\s+UPDATED\ncli-shop\s+Cli Shop\s+0\s+idle/);
    const listed = JSON.parse((await cli('projects', 'list', '--json')).stdout);
    t.same(listed, (await s.call('GET', '/api/projects')).body, '--json prints what the API answered');
    const created = await cli('services', 'cli-shop', 'create', 'web', '--image', TEST_IMAGES.web, '--port', '8080');
    t.equal(created.status, 0, created.stderr);
    t.match((await cli('services', 'cli-shop')).stdout, /^NAME\s+KIND\s+STATUS\s+URL\s+LAST DEPLOYED\s+ID\nweb\s+image\/web\s+idle\s+http:\/\/localhost:\d+\s+never/);
    t.equal((await cli('variables', 'cli-shop/web', 'set', 'GREETING=hello', 'API_TOKEN=very-secret-value')).status, 0);
    const variables = await cli('variables', 'web');
    t.match(variables.stdout, /GREETING\s+••••••••/);
    t.notMatch(variables.stdout, /hello|very-secret-value/, 'values are hidden in the table');
    t.same(JSON.parse((await cli('variables', 'web', '--json')).stdout).env.map((v: { key: string; value: string }) => [v.key, v.value]), [
      ['GREETING', 'hello'],
      ['API_TOKEN', 'very-secret-value'],
    ]);
    const former = await cli('env', 'web');
    t.equal(former.stdout, (await cli('variables', 'web')).stdout, 'the former name `env` does the same');
    t.match(former.stderr, /`env` is now `variables`/, 'and says the new name on stderr');
    t.equal((await cli('variables', 'web', 'unset', 'API_TOKEN')).status, 0);
    t.notMatch((await cli('variables', 'web')).stdout, /API_TOKEN/);
    t.equal((await cli('domains', 'web', 'add', 'shop.cli.test')).status, 0);
    t.match((await cli('domains', 'web')).stdout, /shop\.cli\.test\s+disabled/);
    t.equal((await cli('domains', 'web', 'remove', 'shop.cli.test')).status, 0);
    t.match((await cli('domains', 'web')).stdout, /no domains/);
  });

  await t.test('errors: the API’s message and a non-zero exit code; usage errors exit 2 with the usage', async (t) => {
    const taken = await cli('services', 'cli-shop', 'create', 'web', '--image', TEST_IMAGES.web);
    t.equal(taken.status, 1);
    t.match(taken.stderr, /^slipway: .*web.* \(conflict, HTTP 409\)\n$/);
    const unknown = await cli('variables', 'no-such-service');
    t.equal(unknown.status, 1);
    t.match(unknown.stderr, /no service "no-such-service"/);
    const usage = await cli('domains', 'web', 'add');
    t.equal(usage.status, 2);
    t.match(usage.stderr, /needs the hostname/);
    const help = await cli('deploy', '--help');
    t.equal(help.status, 0);
    t.match(help.stdout, /Usage: slipway deploy \[options\] <service>/);
  });

  await t.test('deploy follows the log stream until the deployment ends: exit 0 when it succeeded', async (t) => {
    const run = await cli('deploy', 'cli-shop/web');
    t.equal(run.status, 0, run.stderr);
    t.match(run.stdout, /Started container slipway-web-[0-9a-f-]+/, 'the build and start-up lines');
    t.match(run.stdout, /test-web listening on 8080/, "the app's own first line");
    t.match(run.stdout, /\ndeployment [0-9a-f-]+ succeeded\n$/);
    t.match(run.stderr, /queued; waiting for its first line/, 'a progress line while waiting');
    t.match(run.stderr, new RegExp(`in the dashboard: ${s.url.replace(/[.]/g, '\\.')}/deployments/[0-9a-f-]{36}\n`), "the deployment's page in the dashboard");
    const deployed = JSON.parse((await cli('services', 'cli-shop', '--json')).stdout).services[0];
    t.not(deployed.lastDeployedAt, null);
  });

  await t.test('deploy exits non-zero when the deployment fails, with its reason', async (t) => {
    t.equal((await cli('services', 'cli-shop', 'create', 'broken', '--image', 'nginx:1.27')).status, 0);
    const run = await cli('deploy', 'broken');
    t.equal(run.status, 1);
    t.match(run.stdout, /Pulling nginx:1\.27/);
    t.match(run.stdout, /deployment [0-9a-f-]+ failed: pulling nginx:1\.27 failed/);
    t.match(run.stdout, /\nwhy, and what to do: slipway deployments explain [0-9a-f-]{36}\n$/, 'it ends with the command that explains it');
  });

  await t.test('--json: each log line and the final deployment as one JSON object per line', async (t) => {
    const run = await cli('deploy', 'web', '--json');
    t.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    t.match(lines[0], { deployment: { status: 'queued' } });
    t.ok(lines.slice(1, -1).every((l) => l.event === 'log' && typeof l.data.line === 'string'));
    t.match(lines.at(-1), { deployment: { status: 'succeeded', id: lines[0].deployment.id } });
  });

  await t.test('releases lists what went live; rollback runs an earlier one without a build and follows it', async (t) => {
    const listed = await cli('releases', 'web');
    t.equal(listed.status, 0, listed.stderr);
    t.match(listed.stdout, /VERSION\s+CURRENT[\s\S]*\nv2\s+\*[\s\S]*\nv1\s/, 'v2 current, v1 below it');
    const back = await cli('rollback', 'web');
    t.equal(back.status, 0, back.stderr);
    t.match(back.stderr, /rollback [0-9a-f-]+ of web queued/);
    t.match(back.stdout, /Running release v1 .* without clone or build/);
    t.match(back.stdout, /\ndeployment [0-9a-f-]+ succeeded\n$/);
    const to = await cli('rollback', 'web', '--to', 'v2', '--json');
    t.equal(to.status, 0, to.stderr);
    t.match(JSON.parse(to.stdout.trim().split('\n').at(-1)!), { deployment: { kind: 'rollback', status: 'succeeded' } });
    const missing = await cli('rollback', 'web', '--to', '9');
    t.equal(missing.status, 1);
    t.match(missing.stderr, /no release 9; its releases: v4, v3, v2, v1/);
    const stopped = await cli('stop', 'web');
    t.equal(stopped.status, 0, stopped.stderr);
    t.match(stopped.stdout, /stopped web; its routes answer 503/);
    const started = await cli('start', 'web');
    t.equal(started.status, 0, started.stderr);
    t.match(started.stderr, /start [0-9a-f-]+ of web queued/);
    t.match(started.stdout, /\ndeployment [0-9a-f-]+ succeeded\n$/);
  });

  await t.test('Ctrl-C asks whether to abort; yes aborts the deployment and the exit code says it did not succeed', async (t) => {
    t.equal((await cli('services', 'cli-shop', 'create', 'worker', '--image', TEST_IMAGES.web, '--mode', 'worker')).status, 0);
    const run = await slipway(env, ['deploy', 'worker'], async (child, output) => {
      // A worker counts as started once it has run SLIPWAY_WORKER_SETTLE (20 s) without exiting: time to interrupt.
      await until('the worker to start', () => output().includes('Started container'));
      child.kill('SIGINT');
      await until('the question', () => output().includes('[y/N]'));
      child.stdin!.end('y\n');
    });
    t.equal(run.status, 1);
    t.match(run.stderr, /Abort deployment [0-9a-f-]+\? \[y\/N\] abort requested/);
    t.match(run.stdout, /deployment [0-9a-f-]+ aborted: aborted by request/);
  });

  await t.test('logs follows the running container’s output', async (t) => {
    const run = await slipway(env, ['logs', 'web'], async (child, output) => {
      await until('the snapshot', () => output().includes('test-web listening on 8080'));
      child.kill('SIGTERM');
    });
    t.match(run.stdout, /test-web listening on 8080/);
  });

  await t.test('audit: the audit log as a table, or as JSON Lines for one request', async (t) => {
    const table = await cli('audit', '--project', 'cli-shop', '--limit', '5');
    t.match(table.stdout, /^POSITION\s+RECORDED\s+ACTOR\s+TYPE\s+STREAM\s+CORRELATION\n/);
    t.equal(table.stdout.trim().split('\n').length, 6, 'a header and five events');
    const created = await s.call('POST', `/api/projects/${project.id}/services`, { body: { name: 'traced', repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web }, headers: { 'x-request-id': 'cli-trace-1' } });
    t.equal(created.status, 200);
    const lines = (await cli('audit', '--correlation', 'cli-trace-1', '--json')).stdout.trim().split('\n').map((l) => JSON.parse(l));
    const former = await cli('events', '--correlation', 'cli-trace-1', '--json');
    t.same(former.stdout.trim().split('\n').map((l) => JSON.parse(l)), lines, 'the former name `events` does the same');
    t.match(former.stderr, /`events` is now `audit`/);
    t.ok(lines.length >= 2, `${lines.length} events of that one request`);
    t.ok(lines.every((e) => e.correlationId === 'cli-trace-1'));
    t.ok(lines.some((e) => e.type === 'ServiceCreated'));
  });
});

t.test('the CLI refuses to send a key in clear to another machine unless told to', async (t) => {
  const s: TestServer = await startTestServer();
  t.teardown(() => s.close());
  const config = mkdtempSync(join(tmpdir(), 'slipway-cli-config-'));
  const port = new URL(s.url).port;
  const elsewhere = `http://192.0.2.10:${port}`;
  const refused = await slipway({ XDG_CONFIG_HOME: config, SLIPWAY_URL: elsewhere, SLIPWAY_KEY: s.key }, ['projects']);
  t.equal(refused.status, 1);
  t.match(refused.stderr, /^slipway: refusing to send the API key in clear to 192\.0\.2\.10:\d+: use https:\/\//);
  const login = await slipway({ XDG_CONFIG_HOME: config, SLIPWAY_URL: '', SLIPWAY_KEY: '' }, ['login', '--url', elsewhere, '--key', s.key]);
  t.equal(login.status, 1, 'login too');
  t.match(login.stderr, /refusing to send the API key in clear/);
  t.throws(() => statSync(join(config, 'slipway', 'credentials.json')), 'and saves nothing');

  for (const local of [s.url, s.url.replace('127.0.0.1', 'localhost')]) {
    const ok = await slipway({ XDG_CONFIG_HOME: config, SLIPWAY_URL: local, SLIPWAY_KEY: s.key }, ['projects', '--json']);
    t.equal(ok.status, 0, `${local}: this machine is fine over HTTP`);
  }
  // The server listens on loopback only: through this machine's other address the connection is refused at once.
  const outside = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address ?? '192.0.2.10';
  for (const args of [['--insecure', 'projects'], ['projects', '--insecure']]) {
    const told = await slipway({ XDG_CONFIG_HOME: config, SLIPWAY_URL: `http://${outside}:${port}`, SLIPWAY_KEY: s.key }, args);
    t.match(told.stderr, /^slipway: cannot reach Slipway at/, `${args.join(' ')}: the URL is let through (and then not reached)`);
  }
});
