import { mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { requireCaddy } from '../helpers/caddy.js';
import { spawnServe } from '../helpers/cli-process.js';
import { eventually, freePort } from '../helpers/net.js';

const caddyAnswers = async (admin: string) => {
  try {
    return (await fetch(`http://${admin}/config/`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
};

async function stoppedBySignal(t: Test, signal: NodeJS.Signals, extra: Record<string, string>): Promise<{ admin: string; dataDir: string; logs: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-stop-'));
  const admin = `127.0.0.1:${await freePort()}`;
  t.teardown(() => {
    spawnSync('pkill', ['-f', `${dataDir}/caddy/bootstrap.json`]);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const env = { SLIPWAY_PROXY: 'caddy', SLIPWAY_CADDY_ADMIN_LISTEN: admin, SLIPWAY_PROXY_HTTP_PORT: String(await freePort()), SLIPWAY_PROXY_HTTPS_PORT: String(await freePort()), SLIPWAY_UPSTREAM_SWITCH: 'reload', ...extra };
  const { child, logs } = await spawnServe(dataDir, env, 90_000);
  t.ok(await eventually(() => caddyAnswers(admin), (up) => up, 20_000), 'Slipway started its Caddy');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  t.equal(await exited, 0, `${signal}: Slipway stopped cleanly`);
  return { admin, dataDir, logs: logs() };
}

t.test('stopping slipway serve stops the Caddy it runs, unless SLIPWAY_KEEP_PROXY=1', { skip: requireCaddy() }, async (t) => {
  await t.test('SIGTERM (a service manager): the Caddy goes too', async (t) => {
    const { admin, logs } = await stoppedBySignal(t, 'SIGTERM', {});
    t.notOk(await eventually(() => caddyAnswers(admin), (up) => !up, 10_000), 'no Caddy answers any more');
    t.match(logs, 'stopped caddy (SLIPWAY_KEEP_PROXY=1 keeps it serving while Slipway is down)');
  });
  await t.test('SIGINT (Ctrl-C) with SLIPWAY_KEEP_PROXY=1: the sites keep being served', async (t) => {
    const { admin, dataDir } = await stoppedBySignal(t, 'SIGINT', { SLIPWAY_KEEP_PROXY: '1' });
    t.ok(await caddyAnswers(admin), 'Caddy still answers');
    t.equal(spawnSync('pgrep', ['-f', `${dataDir}/caddy/bootstrap.json`]).status, 0, 'its process runs on');
  });
});
