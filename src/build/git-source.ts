import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { writePrivateFile } from '../private-files.js';

export interface CloneRequest {
  url: string;
  branch: string;
  /** Sent as an HTTP header from a private config file: never in the URL, the arguments, the environment or a log line. */
  token: string | null;
  dir: string;
  signal: AbortSignal;
  onLine: (line: string) => void;
}

const IN_PROGRESS = /\d+% \(\d+\/\d+\)(, [^,]+)?\s*$/;

function git(args: string[], env: Record<string, string>, signal: AbortSignal, onLine: (line: string) => void, cwd?: string) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn('git', args, {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', GIT_TERMINAL_PROMPT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: git leaves the transfer to helpers (git-remote-http) that a killed git
      // would leave running, still waiting on the remote.
      detached: true,
    });
    const stop = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group has already exited.
      }
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    let stdout = '';
    // Git says why it failed on its last `fatal:` line; that line becomes the deployment's reason.
    let fatal = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    // Progress lines end in \r; split on either.
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => {
      // Keep git's finished counters, not every percentage it redraws on the way.
      for (const part of line.split('\r')) {
        if (!part.trim() || IN_PROGRESS.test(part)) continue;
        if (part.startsWith('fatal: ')) fatal = part.slice('fatal: '.length).trim();
        onLine(part.trimEnd());
      }
    });
    child.on('error', (error) => {
      signal.removeEventListener('abort', stop);
      reject(error);
    });
    child.on('close', (code) => {
      signal.removeEventListener('abort', stop);
      if (signal.aborted) reject(new Error('git was stopped'));
      else if (code === 0) resolve(stdout.trim());
      else reject(new Error(`git ${args[0]} exited with code ${code}${fatal ? `: ${fatal}` : ''}`));
    });
  });
}

/**
 * The token as an `Authorization` header in a config file of mode 0600 beside the checkout, created exclusively
 * in the build's own 0700 directory, which git includes: the arguments (world-readable in /proc) and the
 * environment of git then name only the file.
 */
function writeCredentials(request: CloneRequest): { env: Record<string, string>; path: string } | null {
  if (!request.token) return null;
  const path = join(dirname(request.dir), 'git-credentials.config');
  const basic = Buffer.from(`x-access-token:${request.token}`).toString('base64');
  writePrivateFile(path, `[http]\n\textraHeader = Authorization: Basic ${basic}\n`);
  return { env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'include.path', GIT_CONFIG_VALUE_0: path }, path };
}

/** A shallow clone of one branch; returns the commit it checked out. */
export async function cloneBranch(request: CloneRequest): Promise<string> {
  const credentials = writeCredentials(request);
  try {
    await git(
      ['clone', '--depth', '1', '--single-branch', '--branch', request.branch, '--no-tags', '--progress', '--', request.url, request.dir],
      credentials?.env ?? {},
      request.signal,
      request.onLine,
    );
  } finally {
    if (credentials) rmSync(credentials.path, { force: true });
  }
  return git(['rev-parse', 'HEAD'], {}, request.signal, request.onLine, request.dir);
}
