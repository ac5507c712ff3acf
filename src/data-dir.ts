import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from './logger.js';

const OTHERS = 0o077;

/** Takes group and other permissions off everything under `path` (links are left alone); returns how many. */
export function tighten(path: string): number {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return 0;
  let changed = 0;
  if (stat.mode & OTHERS) {
    chmodSync(path, stat.mode & 0o7700);
    changed++;
  }
  if (stat.isDirectory()) for (const name of readdirSync(path)) changed += tighten(join(path, name));
  return changed;
}

/**
 * The data directory holds the master key, the database, backups and Caddy's keys: no other local user may
 * read it. Everything Slipway creates from now on is 0600 / 0700 (the process umask, which PGlite's thread
 * and Caddy share); what an earlier version or an operator left wider is tightened, with a log line.
 */
export function prepareDataDir(dataDir: string, log: Logger): void {
  process.umask(OTHERS);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const changed = tighten(dataDir);
  if (changed > 0) log.warn('the data directory was readable by other users: tightened to 0700 (files 0600)', { dataDir, entries: changed });
}
