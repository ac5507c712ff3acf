import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRE_RECEIVE_HOOK } from './pre-receive-hook.js';

const run = promisify(execFile);

/**
 * The bare repositories `git push` writes to, one per service, in `<data dir>/git` (0700), and the hooks
 * every push runs. The hooks live outside the repositories and are named through the environment of the
 * process serving a push (`core.hooksPath`): nothing a push writes can change them, and an upgrade of
 * Slipway changes them for every repository at once.
 */
export class PushRepositories {
  readonly root: string;
  readonly hooksDir: string;
  private hooksWritten = false;

  constructor(
    dataDir: string,
    private readonly pushLimitBytes: number,
  ) {
    this.root = join(dataDir, 'git');
    this.hooksDir = join(this.root, 'hooks');
  }

  /** The path of a service's repository (which may not exist yet). */
  pathOf(serviceId: string): string {
    return join(this.root, `${serviceId}.git`);
  }

  /** The service's repository, created (bare, 0700) on first use. */
  ensure(serviceId: string): string {
    const path = this.pathOf(serviceId);
    if (!existsSync(join(path, 'HEAD'))) {
      mkdirSync(this.root, { recursive: true, mode: 0o700 });
      execFileSync('git', ['init', '--quiet', '--bare', path], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: 'ignore' });
    }
    if (!this.hooksWritten) this.writeHooks();
    return path;
  }

  /** Written once per start: a hook of an older version (or another Node) is replaced. */
  private writeHooks(): void {
    this.hooksWritten = true;
    mkdirSync(this.hooksDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(this.hooksDir, 'pre-receive.cjs'), PRE_RECEIVE_HOOK, { mode: 0o600 });
    const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
    writeFileSync(join(this.hooksDir, 'pre-receive'), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(join(this.hooksDir, 'pre-receive.cjs'))}\n`, { mode: 0o700 });
  }

  /** Deletes the service's repository (with its service: nothing pushed outlives it). */
  remove(serviceId: string): void {
    rmSync(this.pathOf(serviceId), { recursive: true, force: true });
  }

  /** The commit a branch of the service's repository points at; the zero id when there is none. */
  async branchTip(serviceId: string, branch: string): Promise<string> {
    const { stdout } = await run('git', ['--git-dir', this.pathOf(serviceId), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    }).catch(() => ({ stdout: '' }));
    return stdout.trim() || '0'.repeat(40);
  }

  /** Git configuration for the process serving a push (GIT_CONFIG_COUNT…, never arguments a push could alter). */
  configEnv(): Record<string, string> {
    const entries: [string, string][] = [
      ['core.hooksPath', this.hooksDir],
      // Every object a push brings is checked, as a hosted Git server does.
      ['receive.fsckObjects', 'true'],
      // A push larger than this is refused while it arrives: the disk is shared with every other project.
      ['receive.maxInputSize', String(this.pushLimitBytes)],
      ['http.receivepack', 'true'],
    ];
    return Object.fromEntries([
      ['GIT_CONFIG_COUNT', String(entries.length)],
      ...entries.flatMap(([key, value], i) => [
        [`GIT_CONFIG_KEY_${i}`, key],
        [`GIT_CONFIG_VALUE_${i}`, value],
      ]),
    ]);
  }
}
