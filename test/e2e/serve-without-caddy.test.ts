import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cliArgs, root } from '../helpers/cli-process.js';

/** `slipway serve` with the proxy on; resolves with its exit code and stderr, or rejects if it still runs after `withinMs`. */
function serveWithProxy(dataDir: string, env: Record<string, string>, withinMs: number) {
  const base = { ...process.env };
  delete base.SLIPWAY_CADDY_ADMIN;
  delete base.SLIPWAY_CADDY_BIN;
  const child = spawn(process.execPath, [...cliArgs, 'serve'], {
    cwd: root,
    env: { ...base, SLIPWAY_DATA_DIR: dataDir, SLIPWAY_PORT: '0', SLIPWAY_HOST: '127.0.0.1', SLIPWAY_PROXY: 'caddy', ...env },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve still ran after ${withinMs / 1000} s: ${stderr}`));
    }, withinMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

const fixes = [/apt-get install caddy/, /SLIPWAY_CADDY_BIN/, /SLIPWAY_CADDY_ADMIN/, /SLIPWAY_PROXY=off/];

t.test('with the proxy on and no Caddy binary, serve exits at once and says how to fix it', async (t) => {
  for (const [label, env, what] of [
    ['a configured path that does not exist', { SLIPWAY_CADDY_BIN: '/nonexistent/caddy' }, /\/nonexistent\/caddy is not an executable file/],
    ['no caddy on PATH', { PATH: '/nonexistent-bin' }, /no "caddy" executable on PATH/],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'slipway-nocaddy-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    // tsx compiles the CLI on start: the bound is generous for a loaded machine, far below a server's lifetime.
    const { code, stderr } = await serveWithProxy(dir, env, 20_000);
    t.equal(code, 1, `${label}: a non-zero exit`);
    t.match(stderr, what, `${label}: names what is missing`);
    for (const fix of fixes) t.match(stderr, fix, `${label}: suggests ${fix.source}`);
    t.same(readdirSync(dir), [], `${label}: the data directory was not touched (no lock, no database)`);
  }
});
