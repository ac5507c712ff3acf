import { randomBytes, scryptSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function decodeKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const b64 = Buffer.from(trimmed, 'base64');
  if (b64.length === 32 && /^[A-Za-z0-9+/_-]+=*$/.test(trimmed)) return b64;
  // Anything else is a passphrase: stretch it to a key.
  return scryptSync(trimmed, 'slipway-master-key', 32);
}

/** The master key wraps every data key: from SLIPWAY_SECRET_KEY, else a 0600 key file made on first start. */
export function loadMasterKey(dataDir: string, fromEnv: string | undefined): { key: Buffer; source: string } {
  if (fromEnv && fromEnv.trim() !== '') return { key: decodeKey(fromEnv), source: 'SLIPWAY_SECRET_KEY' };
  const path = join(dataDir, 'master.key');
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  }
  return { key: decodeKey(readFileSync(path, 'utf8')), source: path };
}
