import './untraced-children.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { allowingConfiguredServers } from './outbound.js';
import { seedPgliteDir } from './pglite-template.js';

export const root = resolve(import.meta.dirname, '../..');

/** Whether dist holds a build of these very sources (the digest scripts/lib/build.sh writes after a build). */
function builtFromTheseSources(): boolean {
  const digest = spawnSync('bash', ['-c', 'source scripts/lib/build.sh && build_digest'], { cwd: root, encoding: 'utf8' });
  try {
    return digest.status === 0 && readFileSync(join(root, 'dist/.build-digest'), 'utf8').trim() === digest.stdout.trim();
  } catch {
    return false;
  }
}

/**
 * How a test runs `slipway`, from any directory: the compiled CLI when it is current (npm test builds it; a
 * process costs a fifth of the CPU), else the sources through tsx.
 */
export const cliArgs = builtFromTheseSources() ? [join(root, 'dist/src/cli/main.js')] : ['--import', import.meta.resolve('tsx'), join(root, 'src/cli/main.ts')];

/**
 * `slipway serve` as its own process (so it can be signalled, or killed like a crash); resolves once it listens.
 * With `startTimeoutMs`, a server that has not listened by then is killed and the promise rejects.
 */
export async function spawnServe(
  dataDir: string,
  env: Record<string, string> = {},
  startTimeoutMs?: number,
): Promise<{ child: ChildProcess; url: string; logs: () => string }> {
  if (!env.DATABASE_URL) await seedPgliteDir(join(dataDir, 'pgdata'));
  const child = spawn(process.execPath, [...cliArgs, 'serve'], {
    cwd: root,
    env: { ...process.env, SLIPWAY_PROXY: 'off', SLIPWAY_HTTPS: 'off', ...allowingConfiguredServers(env), SLIPWAY_DATA_DIR: dataDir, SLIPWAY_PORT: '0', SLIPWAY_HOST: '127.0.0.1' },
  });
  let logs = '';
  child.stderr!.setEncoding('utf8');
  const url = await new Promise<string>((ok, fail) => {
    child.stderr!.on('data', (chunk: string) => {
      logs += chunk;
      const m = /"url":"([^"]+)"/.exec(logs);
      if (m) ok(m[1]!);
    });
    child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${logs}`)));
    if (startTimeoutMs !== undefined) {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new Error(`serve did not listen within ${startTimeoutMs / 1000} s: ${logs}`));
      }, startTimeoutMs);
      child.once('exit', () => clearTimeout(timer));
      child.stderr!.on('data', () => /"url":"/.test(logs) && clearTimeout(timer));
    }
  });
  return { child, url, logs: () => logs };
}

/** `slipway …` with `input` on its stdin (a password, as a pipe gives it), and `env` over the test's own. */
export function slipwayWithInput(env: Record<string, string>, args: string[], input = ''): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin.end(input);
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, stdout, stderr })));
}
