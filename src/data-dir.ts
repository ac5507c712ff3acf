import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from './logger.js';

const OTHERS = 0o077;

/** Takes group and other permissions off everything under `path` (links are left alone); returns the paths it changed. */
export function tighten(path: string, changed: string[] = []): string[] {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return changed;
  if (stat.mode & OTHERS) {
    chmodSync(path, stat.mode & 0o7700);
    changed.push(path);
  }
  if (stat.isDirectory()) for (const name of readdirSync(path)) tighten(join(path, name), changed);
  return changed;
}

const setUmask = process.umask.bind(process);

/**
 * Sets the process umask and makes reading it (`process.umask()` without an argument) answer the mask held
 * here. Node reads the umask by setting it to 0 and back: a file another thread creates in between (PGlite's,
 * which asks for 0644 where Postgres uses fopen: pg_internal.init, the stats file) is left open to everyone.
 * Libraries read it often (tar-fs at every Docker build context it packs).
 */
function holdUmask(mask: number): void {
  let held = mask;
  setUmask(held);
  process.umask = (next?: string | number): number => {
    if (next === undefined) return held;
    const before = setUmask(next);
    held = typeof next === 'number' ? next : Number.parseInt(next, 8);
    return before;
  };
}

/**
 * The data directory holds the master key, the database, backups and Caddy's keys: no other local user may
 * read it. Everything Slipway creates from now on is 0600 / 0700 (the process umask, which PGlite's thread
 * and Caddy share, held by `holdUmask`); what an earlier version or an operator left wider is tightened, with a log line.
 */
export function prepareDataDir(dataDir: string, log: Logger): void {
  holdUmask(OTHERS);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Behind a 0700 directory nothing is readable by anyone else, whatever its own mode (PGlite's initdb cut
  // short leaves its files 0666 there): those are tightened without a word. An open directory is a leak.
  const open = (lstatSync(dataDir).mode & OTHERS) !== 0;
  const changed = tighten(dataDir);
  // Which ones, for the operator to find what made them (an earlier version, a tool run in the directory).
  if (open) log.warn('the data directory was readable by other users: tightened to 0700 (files 0600)', { dataDir, entries: changed.length, examples: changed.slice(0, 5) });
}
