import { execFileSync } from 'node:child_process';
import { apiClient, CliError } from './client.js';
import { resolveCredentials } from './credentials.js';
import { out } from './output.js';
import { findService } from './resolve.js';

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** This CLI as a shell command git can run (with the loader it was started with, in development). */
const selfCommand = () => [process.execPath, ...process.execArgv, process.argv[1]!].map(shellQuote).join(' ');

/**
 * Prints the service's Git remote, or (`--add [name]`) adds it to the repository in the current directory
 * with this CLI as its credential helper: git gets the key `slipway login` saved (or SLIPWAY_KEY) when it
 * asks, and no key is written into the repository's configuration.
 */
export async function gitRemote(serviceRef: string, o: { add?: string | boolean; project?: string }): Promise<number> {
  const { api, url } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const remote = `${url.replace(/\/+$/, '')}/git/${service.id}.git`;
  if (!o.add) {
    out(remote);
    return 0;
  }
  const name = typeof o.add === 'string' ? o.add : 'slipway';
  const git = (...args: string[]) => execFileSync('git', args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  try {
    git('remote', 'add', name, remote);
    git('config', `credential.${remote}.helper`, `!${selfCommand()} git-credential`);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new CliError(`git could not add the remote ${name}: ${stderr || String(error)}`);
  }
  out(`added remote ${name} → ${remote}; deploy with: git push ${name} ${service.branch}`);
  return 0;
}

/** git's credential helper protocol (`get`): the saved key as the password; `store` and `erase` change nothing. */
export async function gitCredential(operation: string): Promise<number> {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  if (operation !== 'get') return 0;
  const { key } = resolveCredentials();
  if (!key) throw new CliError('no API key: set SLIPWAY_KEY or run `slipway login`');
  const asked = new Map(input.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const));
  process.stdout.write(`${asked.has('username') ? '' : 'username=slipway\n'}password=${key}\n`);
  return 0;
}
