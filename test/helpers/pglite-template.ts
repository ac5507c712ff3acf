import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openPglite } from '../../src/db/pglite-client.js';
import type { SqlClient } from '../../src/db/sql-client.js';

const root = resolve(import.meta.dirname, '../..');

/**
 * PGlite's initdb costs about 5 s of CPU per data directory, and the PGlite tests make many on two cores. One data
 * directory initialised by Slipway's own code (openPglite: the same child process, the same configuration)
 * and copied is the same directory for a tenth of that. Keyed by the PGlite version and configuration, so a
 * change to either makes a new one.
 */
const key = createHash('sha256')
  .update(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json')))
  .update(readFileSync(join(root, 'src/db/pglite-config.ts')))
  .digest('hex')
  .slice(0, 16);
const template = join(tmpdir(), 'slipway-pglite-template', key);

let ready: Promise<void> | undefined;

async function makeTemplate(): Promise<void> {
  if (existsSync(join(template, 'PG_VERSION'))) return;
  mkdirSync(join(template, '..'), { recursive: true, mode: 0o700 });
  // Test files run in parallel: each may make one, the first rename wins and the others' are dropped.
  const own = mkdtempSync(`${template}.making-`);
  const db = await openPglite(join(own, 'pgdata'));
  await db.close();
  try {
    renameSync(join(own, 'pgdata'), template);
  } catch (error) {
    if (!existsSync(join(template, 'PG_VERSION'))) throw error;
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
}

/** Puts a freshly initialised PGlite data directory at `dir` unless one is there. */
export async function seedPgliteDir(dir: string): Promise<void> {
  if (existsSync(join(dir, 'PG_VERSION'))) return;
  await (ready ??= makeTemplate());
  // Modes are copied too: initdb's files are 0666, and the server's own tightening is what is tested.
  cpSync(template, dir, { recursive: true });
}

/**
 * A store of its own for a test that needs PGlite but not its initdb: a copy of the template in a temporary data
 * directory, removed when the store is closed. (An in-memory store runs initdb each time.)
 */
export async function seededPglite(): Promise<SqlClient> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-pglite-'));
  await seedPgliteDir(join(dir, 'pgdata'));
  const db = await openPglite(join(dir, 'pgdata'));
  let closing: Promise<void> | undefined;
  return { ...db, close: () => (closing ??= db.close().finally(() => rmSync(dir, { recursive: true, force: true }))) };
}
