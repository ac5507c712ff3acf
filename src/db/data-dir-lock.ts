import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  constructor(readonly path: string, readonly pid: number | null) {
    super(`data directory is in use by process ${pid ?? '(unknown: it is starting)'} (lock file ${path})`);
  }
}

// flock(1)'s exit status when --nonblock finds the lock taken (its default --conflict-exit-code).
const TAKEN = 1;

function holderOf(path: string): number | null {
  const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * PGlite does not lock its data directory and a second process corrupts it. The lock is a flock(2) on
 * `slipway.lock`: the kernel grants it to one open file at a time and drops it when this process exits,
 * however it exits, so there is no stale lock to take over and no race in taking one over. Node has no
 * flock; util-linux's `flock` takes it on a descriptor this process passes it, and a flock belongs to
 * the open file, not to the process that took it, so it stays held by this process's descriptor after
 * the helper exits. Node opens files close-on-exec: no child (Caddy, git, docker) inherits the lock.
 * The file is never removed (removing it would let a second starter lock a new file while the first
 * holds the old one); it holds the holder's pid only so a refusal can say who.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'slipway.lock');
  const fd = openSync(path, 'a+', 0o600);
  const result = spawnSync('flock', ['--exclusive', '--nonblock', '3'], { stdio: ['ignore', 'ignore', 'pipe', fd], encoding: 'utf8' });
  if (result.status !== 0) {
    closeSync(fd);
    if (result.status === TAKEN) throw new DataDirLockedError(path, holderOf(path));
    throw new Error(`could not lock data directory ${dataDir}: flock: ${result.error?.message || result.stderr.trim() || `exited ${result.status}`} (install util-linux)`);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, String(process.pid), 0);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    ftruncateSync(fd, 0);
    closeSync(fd);
  };
}
