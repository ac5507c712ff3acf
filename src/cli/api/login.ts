import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { hostname } from 'node:os';
import createClient from 'openapi-fetch';
import type { paths } from '../../shared/api-types.js';
import { answer, apiClient, CliError, refuseClearText } from './client.js';
import { resolveCredentials, saveCredentials } from './credentials.js';
import { out } from './output.js';

/** Reads a secret line from stdin; on a terminal without echoing it. */
export function readSecret(prompt: string): Promise<string> {
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const terminal = Boolean(process.stdin.isTTY);
  if (terminal) process.stderr.write(`${prompt}: `);
  const rl = createInterface({ input: process.stdin, output: terminal ? muted : undefined, terminal });
  return new Promise((resolve) => {
    let key = '';
    rl.once('line', (line) => {
      key = line.trim();
      rl.close();
    });
    rl.once('close', () => {
      if (terminal) process.stderr.write('\n');
      resolve(key);
    });
  });
}

/**
 * Signs in as a person, makes a personal write key named after this machine (it never does more than they can,
 * at each request), and signs that session out: the key is what is saved.
 */
async function personalKey(url: string, email: string): Promise<string> {
  refuseClearText(url);
  const password = await readSecret('Password');
  const api = createClient<paths>({ baseUrl: url });
  const signIn = api.POST('/api/sessions', { body: { email, password } });
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
  const key = o.email ? await personalKey(url, o.email) : (o.key ?? (await readSecret('API key')));
  if (!key) throw new CliError('no key given');
  const { api } = apiClient({ url, key });
  const { projects } = await answer(api.GET('/api/projects'), url);
  const file = saveCredentials({ url, key });
  out(`logged in to ${url} (this key sees ${projects.length} project(s)); saved to ${file}`);
}
