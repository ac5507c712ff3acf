import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { required } from './requirements.js';

export const caddyBin = process.env.SLIPWAY_CADDY_BIN ?? 'caddy';

/** tap's `skip` for tests that need Caddy; fatal under `npm test`, which installs it. */
export function requireCaddy(): string | false {
  try {
    execFileSync(caddyBin, ['version'], { stdio: 'ignore' });
    return required(false);
  } catch {
    return required(`${caddyBin} is not installed (npm test installs it)`);
  }
}

/** How many configurations the Caddy that Slipway runs for `dataDir` has loaded, counted from Caddy's own log. */
export function caddyLoads(dataDir: string): number {
  const log = join(dataDir, 'caddy', 'caddy.log');
  if (!existsSync(log)) return 0;
  return readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('"msg":"load complete"')).length;
}
