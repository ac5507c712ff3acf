import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import { hostname } from 'node:os';
import createClient from 'openapi-fetch';
import type { paths } from '../../shared/api-types.js';
import { answer, apiClient, CliError, refuseClearText } from './client.js';
import { resolveCredentials, saveCredentials } from './credentials.js';
import { out } from './output.js';

/** Lines of stdin, read one interface for the whole command (a second one would lose what the first buffered). */
interface StdinLines {
  rl: Interface;
  lines: string[];
  waiting: ((line: string) => void)[];
  closed: boolean;
}
let stdin: StdinLines | null = null;

function stdinLines(): StdinLines {
  if (stdin) return stdin;
  const terminal = Boolean(process.stdin.isTTY);
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const state: StdinLines = { rl: createInterface({ input: process.stdin, output: terminal ? muted : undefined, terminal }), lines: [], waiting: [], closed: false };
  state.rl.on('line', (line) => {
    const waiter = state.waiting.shift();
    if (waiter) waiter(line.trim());
    else state.lines.push(line.trim());
  });
  state.rl.on('close', () => {
    state.closed = true;
    for (const waiter of state.waiting.splice(0)) waiter('');
  });
  return (stdin = state);
}

/** Reads a secret line from stdin; on a terminal without echoing it. `doneReading` lets the process end. */
export async function readSecret(prompt: string): Promise<string> {
  const terminal = Boolean(process.stdin.isTTY);
  if (terminal) process.stderr.write(`${prompt}: `);
  const input = stdinLines();
  const line = input.lines.shift() ?? (input.closed ? '' : await new Promise<string>((resolve) => input.waiting.push(resolve)));
  if (terminal) process.stderr.write('\n');
  return line;
}

export function doneReading(): void {
  stdin?.rl.close();
  stdin = null;
}

/**
 * Signs in as a person, makes a personal write key named after this machine (it never does more than they can,
 * at each request), and signs that session out: the key is what is saved.
 */
async function personalKey(url: string, email: string): Promise<string> {
  refuseClearText(url, 'your password');
  const password = await readSecret('Password');
  const api = createClient<paths>({ baseUrl: url });
  let signIn = api.POST('/api/sessions', { body: { email, password } });
  const first = await signIn.catch(() => null);
  if ((first?.error as { error?: { code?: string } } | undefined)?.error?.code === 'two_factor_required') {
    signIn = api.POST('/api/sessions', { body: { email, password, code: await readSecret('Code from your authenticator app (or a recovery code)') } });
  }
  const { session } = await answer(signIn, url);
  const cookie = /^[^;]+/.exec((await signIn).response.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new CliError('the server answered the sign-in without a session cookie');
  const headers = { cookie, 'x-csrf-token': session.csrfToken };
  const made = await answer(api.POST('/api/users/me/keys', { headers, body: { name: `CLI on ${hostname()}`.slice(0, 100), access: 'write' } }), url);
  await api.DELETE('/api/sessions', { headers }).catch(() => undefined);
  return made.secret;
}

/** Checks the key against the server, then keeps both in the credentials file (mode 0600). */
export async function login(o: { url?: string; key?: string; email?: string }) {
  const url = (o.url ?? resolveCredentials().url).replace(/\/+$/, '');
  const key = await (o.email ? personalKey(url, o.email) : o.key ? Promise.resolve(o.key) : readSecret('API key')).finally(doneReading);
  if (!key) throw new CliError('no key given');
  const { api } = apiClient({ url, key });
  const { projects } = await answer(api.GET('/api/projects'), url);
  const file = saveCredentials({ url, key });
  out(`logged in to ${url} (this key sees ${projects.length} project(s)); saved to ${file}`);
}
