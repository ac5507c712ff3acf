import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface CloneRequest {
  url: string;
  branch: string;
  /** Sent as an HTTP header through git's environment: never in the URL, the arguments or a log line. */
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
      signal,
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    // Progress lines end in \r; split on either.
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => {
      // Keep git's finished counters, not every percentage it redraws on the way.
      for (const part of line.split('\r')) if (part.trim() && !IN_PROGRESS.test(part)) onLine(part.trimEnd());
    });
    child.on('error', (error) => reject(signal.aborted ? new Error('git was stopped') : error));
    child.on('close', (code) => (code === 0 ? resolve(stdout.trim()) : reject(new Error(`git ${args[0]} exited with code ${code}`))));
  });
}

/** A shallow clone of one branch; returns the commit it checked out. */
export async function cloneBranch(request: CloneRequest): Promise<string> {
  const env: Record<string, string> = {};
  if (request.token) {
    const basic = Buffer.from(`x-access-token:${request.token}`).toString('base64');
    Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` });
  }
  await git(
    ['clone', '--depth', '1', '--single-branch', '--branch', request.branch, '--no-tags', '--progress', '--', request.url, request.dir],
    env,
    request.signal,
    request.onLine,
  );
  return git(['rev-parse', 'HEAD'], {}, request.signal, request.onLine, request.dir);
}
