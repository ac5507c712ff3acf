// A new user's first hour, as the README's quick start tells it: every command of that section, verbatim and in
// order, run from a fresh data directory on the default ports, with each step's output checked the way a person
// reads it. The README block and this list must stay the same sequence (the first assertion).
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { root } from '../helpers/cli-process.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { dbImagesUnavailable } from '../helpers/engine-containers.js';
import { freePort } from '../helpers/net.js';
import { quickStartCommands } from '../helpers/quick-start.js';
import { required } from '../helpers/requirements.js';

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

const skip =
  (await requireDocker()) ||
  required(await dbImagesUnavailable()) ||
  required(!(await portFree(3000)) || !(await portFree(80)) ? 'the quick start runs on the default ports 3000 and 80, and one is taken' : false);

type Result = { status: number | null; stdout: string; stderr: string };
type Vars = Record<string, string>;
interface Step {
  command: string;
  check(t: Test, r: Result, vars: Vars): void;
}

const ok = (t: Test, r: Result, what: string) => t.equal(r.status, 0, `${what} (exit 0)${r.status === 0 ? '' : `\n${r.stdout}\n${r.stderr}`}`);

const steps: Step[] = [
  { command: 'npm run images -- postgres web', check: (t, r) => (ok(t, r, 'images'), t.match(r.stdout, /dbImagePostgres=slipway\/db-postgres:bookworm/, 'it prints the settings to use')) },
  { command: 'alias slipway="node $PWD/dist/src/cli/main.js"', check: (t, r) => ok(t, r, 'alias') },
  { command: 'slipway login --key "$(cat .slipway/bootstrap-key)"', check: (t, r) => (ok(t, r, 'login'), t.match(r.stdout + r.stderr, /localhost:3000/)) },
  { command: 'slipway settings set dbImagePostgres=slipway/db-postgres:bookworm', check: (t, r) => (ok(t, r, 'settings'), t.match(r.stdout, /dbImagePostgres/)) },
  {
    command: 'slipway projects create shop',
    check: (t, r, vars) => {
      ok(t, r, 'project');
      t.match(r.stdout, /created project shop/);
      vars['project id'] = /\(([0-9a-f-]{36})\)/.exec(r.stdout)?.[1] ?? '';
    },
  },
  { command: 'slipway services create main-db --project shop --engine postgres', check: (t, r) => (ok(t, r, 'database service'), t.match(r.stdout, /shop\/main-db/)) },
  { command: 'slipway deploy shop/main-db', check: (t, r) => (ok(t, r, 'database deployed'), t.match(r.stdout + r.stderr, /succeeded/)) },
  {
    command: 'slipway services create web --project shop --image slipway/test-web:bookworm --port 8000',
    check: (t, r) => (ok(t, r, 'image service'), t.match(r.stdout, /shop\/web/)),
  },
  { command: "slipway variables shop/web set 'DATABASE_URL=${main-db.DATABASE_URL}' 'GREETING=hello from the shop'", check: (t, r) => ok(t, r, 'variables') },
  { command: 'slipway domains shop/web add web.localhost', check: (t, r) => (ok(t, r, 'domain'), t.match(r.stdout, /web\.localhost/)) },
  { command: 'slipway deploy shop/web', check: (t, r) => (ok(t, r, 'web deployed'), t.match(r.stdout + r.stderr, /succeeded/)) },
  { command: 'curl -s http://web.localhost', check: (t, r) => (ok(t, r, 'curl'), t.equal(r.stdout, 'hello from the shop', 'the app answers through the proxy')) },
  {
    command: `slipway db connect shop/main-db -- -c "create table notes (body text); insert into notes values ('first note')"`,
    check: (t, r) => (ok(t, r, 'psql through db connect'), t.match(r.stdout, /INSERT 0 1/)),
  },
  {
    command: 'psql "$(slipway db connect shop/main-db --print)" -c "select count(*) from notes"',
    check: (t, r) => (ok(t, r, 'psql with the printed connection string'), t.match(r.stdout, /\b1\b/)),
  },
  {
    command: 'slipway db backup shop/main-db',
    check: (t, r, vars) => {
      ok(t, r, 'backup');
      const id = /backup ([0-9a-f-]{36})/.exec(r.stdout)?.[1];
      t.ok(id, `the backup's id is printed: ${r.stdout}`);
      if (id) vars['backup id'] = id;
    },
  },
  { command: 'slipway db connect shop/main-db -- -c "drop table notes"', check: (t, r) => (ok(t, r, 'drop'), t.match(r.stdout, /DROP TABLE/)) },
  { command: 'slipway db restore shop/main-db --backup <backup id> --yes', check: (t, r) => (ok(t, r, 'restore'), t.match(r.stdout + r.stderr, /restored|succeeded/)) },
  { command: 'slipway db connect shop/main-db -- -c "select body from notes"', check: (t, r) => (ok(t, r, 'the data is back'), t.match(r.stdout, /first note/)) },
];

// npm start may compile the server first (≈ 1 min on a busy 2-core machine).
t.setTimeout(900_000);

t.test('the README quick start, command by command', { skip }, async (t) => {
  t.same(quickStartCommands(root), ['npm start', ...steps.map((s) => s.command)], 'the README shows exactly the sequence this test runs');

  const home = mkdtempSync(join(tmpdir(), 'slipway-first-hour-'));
  mkdirSync(join(home, 'config'));
  const vars: Vars = {};
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SLIPWAY_') && k !== 'DATABASE_URL')),
    SLIPWAY_DATA_DIR: join(home, '.slipway'),
    SLIPWAY_CADDY_ADMIN_LISTEN: `127.0.0.1:${await freePort()}`,
    SLIPWAY_HTTPS: 'off',
    XDG_CONFIG_HOME: join(home, 'config'),
  };

  // `npm start` runs for the whole session, in its own process group so that the teardown stops all of it.
  const server = spawn('npm', ['start'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let serverOutput = '';
  server.stdout.on('data', (c: Buffer) => (serverOutput += c));
  server.stderr.on('data', (c: Buffer) => (serverOutput += c));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  t.teardown(async () => {
    const started = Date.now();
    const took = (what: string) => process.stderr.write(`teardown: ${what} after ${Date.now() - started} ms\n`);
    spawnSync('bash', ['-c', 'node dist/src/cli/main.js projects delete shop --yes'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    took('project deleted');
    process.kill(-server.pid!, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    try {
      process.kill(-server.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
    took('server stopped');
    spawnSync('pkill', ['-f', `${join(home, '.slipway')}/caddy`]);
    if (vars['project id']) await removeProjectLeftovers(vars['project id']);
    rmSync(home, { recursive: true, force: true });
    took('leftovers removed');
  });
  const listening = await new Promise<boolean>((resolve) => {
    const poll = setInterval(() => {
      if (/"url":"http:\/\/127\.0\.0\.1:3000"/.test(serverOutput)) done(true);
    }, 200);
    const deadline = setTimeout(() => done(false), 400_000);
    const done = (v: boolean) => (clearInterval(poll), clearTimeout(deadline), resolve(v));
    void exited.then(() => done(false));
  });
  t.ok(listening, `npm start builds and serves on port 3000\n${serverOutput.slice(-3000)}`);
  if (!listening) return;
  t.ok(existsSync(join(home, '.slipway', 'bootstrap-key')), 'the bootstrap key is written to the data directory');
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the plain line follows the JSON one
  t.match(
    serverOutput,
    new RegExp(`^Slipway is ready: open the dashboard at http://127\\.0\\.0\\.1:3000/ and sign in with the API key in ${join(home, '.slipway', 'bootstrap-key').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
    'the first start prints one plain line: the dashboard and the key file',
  );

  let alias = '';
  for (const step of steps) {
    const command = step.command.replace(/<([a-z ]+)>/g, (_, name: string) => vars[name] ?? `<${name}>`);
    // A person runs npm in the checkout and everything else where the data directory is; an alias holds across lines.
    const inCheckout = /^(npm|alias) /.test(command);
    const script = `shopt -s expand_aliases\n${alias}\n${command}\n${command.startsWith('alias ') ? 'alias slipway' : ''}`;
    const r: SpawnSyncReturns<string> = spawnSync('bash', ['-c', script], { cwd: inCheckout ? root : home, env, encoding: 'utf8', timeout: 300_000 });
    if (command.startsWith('alias ')) alias = r.stdout.trim().replace(/^alias /, 'alias ');
    await t.test(step.command, async (t) => step.check(t, { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() }, vars));
  }
});
