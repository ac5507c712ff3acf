import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';

const DEFAULT_URL = 'http://localhost:3000';

const saved = z.object({ url: z.string().url(), key: z.string().min(1) });
export type Credentials = z.infer<typeof saved>;

/** `$XDG_CONFIG_HOME/slipway/credentials.json` (else `~/.config/…`): what `slipway login` writes, mode 0600. */
export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'slipway', 'credentials.json');
}

function readSaved(file: string): Credentials | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  let parsed;
  try {
    parsed = saved.safeParse(JSON.parse(text));
  } catch {
    throw new Error(`${file} is not JSON: run slipway login again`);
  }
  return parsed.success ? parsed.data : null;
}

/** The server and key to use: `SLIPWAY_URL` and `SLIPWAY_KEY` first, then the file `slipway login` wrote. */
export function resolveCredentials(env: NodeJS.ProcessEnv = process.env): { url: string; key: string | null } {
  const file = readSaved(credentialsFile(env));
  return { url: (env.SLIPWAY_URL || file?.url || DEFAULT_URL).replace(/\/+$/, ''), key: env.SLIPWAY_KEY || file?.key || null };
}

export function saveCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): string {
  const file = credentialsFile(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(saved.parse(credentials), null, 2) + '\n', { mode: 0o600 });
  // An older file keeps its mode through writeFileSync.
  chmodSync(file, 0o600);
  return file;
}
