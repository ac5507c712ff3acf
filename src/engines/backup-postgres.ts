import type { Readable, Writable } from 'node:stream';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { consumingAllInput, runTool, type BackupTarget } from './backup-tool-run.js';
import { endpointOf } from './engine-plans.js';

/** libpq reads a database name holding `=` as a connection string: a quoted `dbname=` says what it is. */
const conninfoOf = (database: string) => `dbname='${database.replace(/['\\]/g, '\\$&')}'`;

function login(target: BackupTarget) {
  const { user, password, database } = endpointOf(target.engine, target.env, 0, null);
  const db = database ?? user ?? 'postgres';
  return { conninfo: conninfoOf(db), env: { PGUSER: user ?? 'postgres', PGDATABASE: db, PGPASSWORD: password ?? '' } };
}

/**
 * TimescaleDB must be told a restore is running (its catalogue and background jobs), and told when it is
 * over whatever the outcome. One transaction: a dump that fails halfway leaves the database as it was.
 */
const RESTORE = `set -e
timescale=$(psql -XAtq -v ON_ERROR_STOP=1 -c "SELECT count(*) FROM pg_extension WHERE extname = 'timescaledb'")
if [ "$timescale" = 1 ]; then psql -XAtq -v ON_ERROR_STOP=1 -c 'SELECT timescaledb_pre_restore()' >/dev/null; fi
status=0
pg_restore --clean --if-exists --single-transaction -d "$1" || status=$?
if [ "$timescale" = 1 ]; then psql -XAtq -v ON_ERROR_STOP=1 -c 'SELECT timescaledb_post_restore()' >/dev/null || status=1; fi
exit $status`;

export async function dumpPostgres(runtime: ContainerRuntime, target: BackupTarget, out: Writable, signal: AbortSignal) {
  const { conninfo, env } = login(target);
  await runTool(runtime, target, 'pg_dump', { cmd: ['pg_dump', '-Fc', '-d', conninfo], env, stdout: out }, signal);
}

export async function restorePostgres(runtime: ContainerRuntime, target: BackupTarget, dump: Readable, signal: AbortSignal) {
  const { conninfo, env } = login(target);
  await runTool(runtime, target, 'pg_restore', { cmd: consumingAllInput(RESTORE, [conninfo]), env, stdin: dump }, signal);
}
