// A new user's first hour, timed: from a fresh clone of this repository (no node_modules, no dist, an empty npm
// cache unless FIRST_HOUR_NPM_CACHE=shared) through the README's quick start. Each step's time, then the total.
//
// The images are built under their own prefix (SLIPWAY_IMAGE_PREFIX=slipway-first-hour), base image included, so
// their time is a fresh machine's and the suite's slipway/* images are neither used nor removed; the prefixed
// images are removed at the end (FIRST_HOUR_KEEP_IMAGES=1 keeps them: a second run then times "up to date").
// The server runs on free ports (API, proxy, Caddy admin), so a running test suite's 3000 and 80 are left alone.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeProjectLeftovers } from '../test/helpers/docker.js';
import { freePort } from '../test/helpers/net.js';

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const prefix = process.env.SLIPWAY_IMAGE_PREFIX || 'slipway-first-hour';
const keepImages = process.env.FIRST_HOUR_KEEP_IMAGES === '1';
const sharedCache = process.env.FIRST_HOUR_NPM_CACHE === 'shared';

const home = mkdtempSync(join(tmpdir(), 'slipway-first-hour-bench-'));
const clone = join(home, 'slipway');
const dataDir = join(clone, '.slipway');
mkdirSync(join(home, 'config'));
const port = await freePort();
const httpPort = await freePort();
const env: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SLIPWAY_') && !k.startsWith('npm_') && k !== 'DATABASE_URL')),
  SLIPWAY_PORT: String(port),
  SLIPWAY_PROXY_HTTP_PORT: String(httpPort),
  SLIPWAY_CADDY_ADMIN_LISTEN: `127.0.0.1:${await freePort()}`,
  SLIPWAY_HTTPS: 'off',
  SLIPWAY_IMAGE_PREFIX: prefix,
  SLIPWAY_URL: `http://127.0.0.1:${port}`,
  XDG_CONFIG_HOME: join(home, 'config'),
  ...(sharedCache ? {} : { npm_config_cache: join(home, 'npm-cache') }),
};

const rows: Array<[string, number, string]> = [];
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const load = () => loadavg()[0]!.toFixed(1);

function run(command: string, cwd = clone): { status: number | null; out: string } {
  const r = spawnSync('bash', ['-c', command], { cwd, env, encoding: 'utf8', timeout: 1_200_000, maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

function must(command: string, cwd = clone): string {
  const r = run(command, cwd);
  if (r.status !== 0) throw new Error(`${command} exited ${r.status}:\n${r.out.slice(-4000)}`);
  return r.out;
}

async function step<T>(label: string, fn: () => Promise<T> | T, note = ''): Promise<T> {
  const loadBefore = load();
  const started = performance.now();
  const value = await fn();
  const ms = performance.now() - started;
  rows.push([label, ms, `${note}${note ? '; ' : ''}load ${loadBefore} → ${load()}`]);
  console.log(`${label.padEnd(52)} ${seconds(ms).padStart(8)}`);
  return value;
}

let server: { child: ChildProcess; output: string; exited: Promise<void> } | null = null;

function startServer() {
  const child = spawn('npm', ['start'], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const s = { child, output: '', exited: new Promise<void>((resolve) => child.once('exit', () => resolve())) };
  child.stdout!.on('data', (c: Buffer) => (s.output += c));
  child.stderr!.on('data', (c: Buffer) => (s.output += c));
  server = s;
  return s;
}

async function apiAnswers(s: NonNullable<typeof server>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void s.exited.then(() => (gone = true));
  while (Date.now() < deadline && !gone) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/projects`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`the API did not answer on port ${port}:\n${s.output.slice(-4000)}`);
}

async function stopServer() {
  if (!server) return;
  const s = server;
  server = null;
  try {
    process.kill(-s.child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  await Promise.race([s.exited, new Promise((r) => setTimeout(r, 20_000))]);
  try {
    process.kill(-s.child.pid!, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Processes whose command line names this run's data directory (the Caddy Slipway started), by pid. */
function killLeftovers() {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

const prefixedImages = () =>
  must(`docker images --format '{{.Repository}}:{{.Tag}}' | grep '^${prefix}/' || true`, root)
    .split('\n')
    .filter(Boolean);

let projectId = '';
let total = 0;
try {
  console.log(`first hour: ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}, npm cache ${sharedCache ? 'shared' : 'empty'}, images ${prefix}/*`);
  if (prefixedImages().length) must(`docker rmi -f ${prefixedImages().join(' ')} >/dev/null`, root);

  await step('git clone', () => must(`git clone --quiet ${root} ${clone}`, home));

  await step('npm start until the API answers (first start)', async () => {
    await apiAnswers(startServer(), 900_000);
  });
  const firstOutput = server!.output;
  const ci = /npm ci[^\n]*\n[\s\S]*?added \d+ packages[^\n]*in ([\d.]+m?s)/.exec(firstOutput)?.[1];
  const built = /built in (\d+) s/.exec(firstOutput)?.[1];
  rows[rows.length - 1]![2] = `npm ci ${ci ?? '?'}, build ${built ?? '?'} s; ${rows[rows.length - 1]![2]}`;
  await stopServer();

  const images = await step('npm run images -- postgres web (fresh, base included)', () => must('npm run -s images -- postgres web'));
  const perImage = images
    .split('\n')
    .filter((l) => /^(built|up to date)/.test(l))
    .map((l) => l.replace(/^\S+( to date)?\s+/, '').replace(`${prefix}/`, ''))
    .join(', ');
  rows[rows.length - 1]![2] = `${perImage}; ${rows[rows.length - 1]![2]}`;

  await apiAnswers(startServer(), 120_000);
  const slipway = `node ${clone}/dist/src/cli/main.js`;
  await step('quick start: database and app deployed, app answers', async () => {
    must(`${slipway} login --key "$(cat .slipway/bootstrap-key)"`);
    must(`${slipway} settings set dbImagePostgres=${prefix}/db-postgres:bookworm`);
    projectId = /\(([0-9a-f-]{36})\)/.exec(must(`${slipway} projects create shop`))?.[1] ?? '';
    must(`${slipway} services create main-db --project shop --engine postgres`);
    must(`${slipway} deploy shop/main-db`);
    must(`${slipway} services create web --project shop --image ${prefix}/test-web:bookworm --port 8000`);
    must(`${slipway} variables shop/web set 'DATABASE_URL=\${main-db.DATABASE_URL}' 'GREETING=hello from the shop'`);
    must(`${slipway} domains shop/web add web.localhost`);
    must(`${slipway} deploy shop/web`);
    const body = must(`curl -s -H 'Host: web.localhost' http://127.0.0.1:${httpPort}`);
    if (body.trim() !== 'hello from the shop') throw new Error(`the app answered ${JSON.stringify(body)}`);
  });

  await step('restart: stop, then npm start until the API answers', async () => {
    await stopServer();
    await apiAnswers(startServer(), 120_000);
  }, 'target ≤ 3 s');
  total = rows.reduce((sum, [, ms]) => sum + ms, 0);
} finally {
  if (server) {
    if (projectId) run(`node ${clone}/dist/src/cli/main.js projects delete shop --yes`);
    await stopServer();
  }
  killLeftovers();
  if (projectId) await removeProjectLeftovers(projectId).catch(() => undefined);
  if (!keepImages && prefixedImages().length) run(`docker rmi -f ${prefixedImages().join(' ')} >/dev/null`, root);
  rmSync(home, { recursive: true, force: true });
}

console.log('\n| step | time | notes |\n|---|---:|---|');
for (const [label, ms, note] of rows) console.log(`| ${label} | ${seconds(ms)} | ${note} |`);
console.log(`| **total** | **${seconds(total)}** (${Math.floor(total / 60000)} min ${Math.round((total % 60000) / 1000)} s) | target ≤ 6 min |`);
