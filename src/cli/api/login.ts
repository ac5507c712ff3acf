import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { answer, apiClient, CliError } from './client.js';
import { resolveCredentials, saveCredentials } from './credentials.js';
import { out } from './output.js';

/** Reads the key from stdin; on a terminal without echoing it. */
function readKey(): Promise<string> {
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const terminal = Boolean(process.stdin.isTTY);
  if (terminal) process.stderr.write('API key: ');
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

/** Checks the key against the server, then keeps both in the credentials file (mode 0600). */
export async function login(o: { url?: string; key?: string }) {
  const url = (o.url ?? resolveCredentials().url).replace(/\/+$/, '');
  const key = o.key ?? (await readKey());
  if (!key) throw new CliError('no key given');
  const { api } = apiClient({ url, key });
  const { projects } = await answer(api.GET('/api/projects'), url);
  const file = saveCredentials({ url, key });
  out(`logged in to ${url} (this key sees ${projects.length} project(s)); saved to ${file}`);
}
