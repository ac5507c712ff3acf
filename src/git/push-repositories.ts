import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_PUSHED_REFS, pushOverLimits, type RefUpdate } from './push-limits.js';
import { PRE_RECEIVE_HOOK } from './pre-receive-hook.js';

export interface PushLimits {
  /** The largest pack one push may send. */
  pushBytes: number;
  /** The most one service's repository may hold on disk. */
  repositoryBytes: number;
}

/** Bytes of the files under `path` (0 when it does not exist). */
async function bytesUnder(path: string): Promise<number> {
  const stat = await lstat(path).catch(() => null);
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.size;
  const names = await readdir(path).catch(() => [] as string[]);
  let total = 0;
  for (const name of names) total += await bytesUnder(join(path, name));
  return total;
}

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
    private readonly limits: PushLimits,
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

  /** The refs of the service's repository. */
  async refsOf(serviceId: string): Promise<Set<string>> {
    const { stdout } = await run('git', ['--git-dir', this.pathOf(serviceId), 'for-each-ref', '--format=%(refname)'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return new Set(stdout.split('\n').filter(Boolean));
  }

  /**
   * Why a push in its pre-receive step must be refused (the repository's quota, its refs), or null. Its objects
   * are in the repository's quarantine then, and counted; a refusal makes git delete them.
   */
  async overLimits(serviceId: string, updates: readonly RefUpdate[]): Promise<string | null> {
    const [sizeBytes, refs] = await Promise.all([bytesUnder(this.pathOf(serviceId)), this.refsOf(serviceId)]);
    return pushOverLimits({ sizeBytes, limitBytes: this.limits.repositoryBytes, refs, maxRefs: MAX_PUSHED_REFS }, updates);
  }

  /**
   * Git configuration for the process serving a push (GIT_CONFIG_COUNT…, never arguments a push could alter).
   * A pack may be as large as the push limit and what is left of the repository's quota allow, and is refused
   * while it arrives past that.
   */
  async configEnv(serviceId: string): Promise<Record<string, string>> {
    const left = this.limits.repositoryBytes - (await bytesUnder(this.pathOf(serviceId)));
    // At least one byte: 0 would mean "no limit" to git.
    const maxInput = Math.max(1, Math.min(this.limits.pushBytes, left));
    const entries: [string, string][] = [
      ['core.hooksPath', this.hooksDir],
      // Every object a push brings is checked, as a hosted Git server does.
      ['receive.fsckObjects', 'true'],
      // A push larger than this is refused while it arrives: the disk is shared with every other project.
      ['receive.maxInputSize', String(maxInput)],
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
