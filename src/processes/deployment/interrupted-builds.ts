import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // Gone meanwhile, or another user's process.
    return '';
  }
};

/**
 * A git process working inside `dir`, by an argument (`git clone … <dir>/<id>/src`) or its environment
 * (the remote helpers get `GIT_DIR`). Only git: Slipway runs nothing else there, and an operator's shell
 * or editor in the directory is none of its business.
 */
function gitWorkingIn(pid: string, dir: string): boolean {
  if (!read(`/proc/${pid}/comm`).startsWith('git')) return false;
  const args = read(`/proc/${pid}/cmdline`).split('\0');
  const env = read(`/proc/${pid}/environ`).split('\0');
  return args.some((a) => a.startsWith(dir)) || env.some((e) => e.slice(e.indexOf('=') + 1).startsWith(dir));
}

/**
 * Discards what runs killed together with Slipway left in the build directory: their git processes first
 * (orphaned, they outlive Slipway: a clone from a server that stopped answering waits on it forever), then
 * the directory itself (checkouts, a credentials file).
 * Only at start-up, before any run of this installation: everything in the directory is then left over.
 * Returns the ids of the processes it stopped.
 */
export function discardInterruptedBuilds(workDir: string): number[] {
  // Builds remove their own directory: an empty one means nothing was interrupted, and /proc need not be read.
  if (!existsSync(workDir) || readdirSync(workDir).length === 0) return [];
  const inside = workDir.replace(/\/+$/, '') + '/';
  const stopped: number[] = [];
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    // No /proc (not Linux): only the directory can be removed.
  }
  for (const pid of pids) {
    if (!gitWorkingIn(pid, inside)) continue;
    // A git that leads its own process group (Slipway starts it so) takes its helpers with it.
    const leadsGroup = read(`/proc/${pid}/stat`).replace(/^.*\) /, '').split(' ')[2] === pid;
    try {
      process.kill(leadsGroup ? -Number(pid) : Number(pid), 'SIGKILL');
      stopped.push(Number(pid));
    } catch {
      // It ended meanwhile.
    }
  }
  rmSync(workDir, { recursive: true, force: true });
  return stopped;
}
