import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A bench's own server, called as JSON with the bootstrap key it wrote into its data directory. */
export function bootstrapClient(dataDir: string, url: string) {
  const key = readFileSync(join(dataDir, 'bootstrap-key'), 'utf8').trim();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  };
  return { headers, call };
}
