import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { isIP } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { hostOf, type DestinationPolicy } from '../outbound/destination-policy.js';
import { writePrivateFile } from '../private-files.js';

export interface CloneRequest {
  url: string;
  branch: string;
  /** The exact commit to check out (it must be on the server, e.g. a pushed `after`); null: the branch's tip. */
  commit?: string | null;
  /** Sent as an HTTP header from a private config file: never in the URL, the arguments, the environment or a log line. */
  token: string | null;
  dir: string;
  signal: AbortSignal;
  onLine: (line: string) => void;
  /** Where the repository's server may be: git connects only to the addresses this policy checked. */
  outbound: DestinationPolicy;
}

const IN_PROGRESS = /\d+% \(\d+\/\d+\)(, [^,]+)?\s*$/;

export function runGit(args: string[], env: Record<string, string>, signal: AbortSignal, onLine: (line: string) => void, cwd?: string) {
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
function writeCredentials(request: CloneRequest): string | null {
  if (!request.token) return null;
  const path = join(dirname(request.dir), 'git-credentials.config');
  const basic = Buffer.from(`x-access-token:${request.token}`).toString('base64');
  writePrivateFile(path, `[http]\n\textraHeader = Authorization: Basic ${basic}\n`);
  return path;
}

/** Configuration given to git through its environment (`GIT_CONFIG_COUNT`…), not its arguments. */
const configEnv = (entries: [string, string][]): Record<string, string> =>
  Object.fromEntries([['GIT_CONFIG_COUNT', String(entries.length)], ...entries.flatMap(([key, value], i) => [[`GIT_CONFIG_KEY_${i}`, key], [`GIT_CONFIG_VALUE_${i}`, value]])]);

/**
 * Where git may connect for `url`: the URL's host resolved once and checked by the policy, handed to curl as
 * its only answer for that name (`http.curloptResolve`), with redirects off. Only http(s) is cloned:
 * `file://`, local paths, `ext::` and ssh would reach what the policy cannot check.
 */
async function pinnedConnection(parsed: URL, outbound: DestinationPolicy): Promise<[string, string][]> {
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`only http and https repositories can be cloned, not ${parsed.protocol}`);
  const host = hostOf(parsed);
  const port = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
  const addresses = await outbound.resolve(host, port);
  const pinned: [string, string][] = [['http.followRedirects', 'false']];
  // An address in the URL is connected to as it is; a name gets exactly the addresses checked.
  if (!isIP(host)) pinned.push(['http.curloptResolve', `${parsed.hostname}:${port}:${addresses.map((a) => (isIP(a) === 6 ? `[${a}]` : a)).join(',')}`]);
  return pinned;
}

const headOf = async (request: CloneRequest) => (await runGit(['rev-parse', 'HEAD'], {}, request.signal, () => undefined, request.dir)).trim();

/** A shallow clone of one branch (at one commit of it, when asked); returns the commit it checked out and the first line of its message. */
export async function cloneBranch(request: CloneRequest): Promise<{ sha: string; message: string }> {
  // Git is given the URL as it was checked (`http://0x7f.1/` is `http://127.0.0.1/`), never a spelling curl could read otherwise.
  const url = new URL(request.url);
  const pinned = await pinnedConnection(url, request.outbound);
  const credentials = writeCredentials(request);
  const env = { GIT_ALLOW_PROTOCOL: 'http:https', ...configEnv([...(credentials ? [['include.path', credentials] as [string, string]] : []), ...pinned]) };
  try {
    await runGit(
      // Cloned from the build directory into a relative path: git's lines ("Cloning into 'src'…") name no host path.
      ['clone', '--depth', '1', '--single-branch', '--branch', request.branch, '--no-tags', '--progress', '--', url.toString(), basename(request.dir)],
      env,
      request.signal,
      request.onLine,
      dirname(request.dir),
    );
    if (request.commit && (await headOf(request)) !== request.commit) {
      // The branch moved on since the push: that commit alone, fetched by its id (servers allow a reachable one).
      await runGit(['fetch', '--depth', '1', '--no-tags', 'origin', request.commit], env, request.signal, request.onLine, request.dir).catch(() => {
        throw new Error(`commit ${request.commit} is not on branch ${request.branch} of the repository (or the server refuses to fetch it by id)`);
      });
      await runGit(['checkout', '--quiet', '--detach', request.commit], {}, request.signal, request.onLine, request.dir);
    }
  } finally {
    if (credentials) rmSync(credentials, { force: true });
  }
  return checkedOutCommit({}, request.signal, request.onLine, request.dir);
}

/** The commit checked out in `dir` and the first line of its message. */
export async function checkedOutCommit(env: Record<string, string>, signal: AbortSignal, onLine: (line: string) => void, dir: string): Promise<{ sha: string; message: string }> {
  const [sha = '', ...subject] = (await runGit(['log', '-1', '--format=%H%n%s'], env, signal, onLine, dir)).split('\n');
  return { sha: sha.trim(), message: subject.join(' ').trim() };
}
