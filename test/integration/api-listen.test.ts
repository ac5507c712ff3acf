import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { cliArgs, root } from '../helpers/cli-process.js';
import { seedPgliteDir } from '../helpers/pglite-template.js';

/** `slipway serve` with exactly this environment for the listen address (SLIPWAY_HOST absent unless given). */
async function serve(t: Test, host: string | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-listen-'));
  const env: Record<string, string | undefined> = { ...process.env, SLIPWAY_DATA_DIR: dataDir, SLIPWAY_PORT: '0', SLIPWAY_PROXY: 'off', SLIPWAY_HTTPS: 'off', SLIPWAY_HOST: host };
  if (host === undefined) delete env.SLIPWAY_HOST;
  // The listen address is under test, not the first start's initdb: the data directory starts initialised.
  await seedPgliteDir(join(dataDir, 'pgdata'));
  const child = spawn(process.execPath, [...cliArgs, 'serve'], { cwd: root, env });
  let logs = '';
  child.stderr.setEncoding('utf8');
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (c: string) => {
      logs += c;
      const m = /"url":"http:\/\/[^:]+:(\d+)"/.exec(logs);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${logs}`)));
  });
  t.teardown(async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { port, logs: () => logs };
}

const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, host, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

const outsideAddress = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

t.test('by default the API listens on loopback only, and says nothing about it', async (t) => {
  const s = await serve(t, undefined);
  t.ok(await reachable('127.0.0.1', s.port), 'reachable on loopback');
  if (outsideAddress) t.notOk(await reachable(outsideAddress, s.port), `not on ${outsideAddress}`);
  else t.comment('this machine has no non-loopback IPv4 address to try');
  t.notMatch(s.logs(), /plain HTTP/);
});

t.test('a public listen address must be asked for, and is warned about at start', async (t) => {
  const s = await serve(t, '0.0.0.0');
  if (outsideAddress) t.ok(await reachable(outsideAddress, s.port), `reachable on ${outsideAddress}`);
  const warning = /"level":"warn","message":"the API listens beyond this machine in plain HTTP/;
  for (let i = 0; i < 50 && !warning.test(s.logs()); i++) await new Promise((r) => setTimeout(r, 100));
  t.match(s.logs(), warning, 'a warning names the risk and the way out');
});
