import type { Readable, Writable } from 'node:stream';
import type { Engine } from '../../commands/service/fields.js';
import type { ContainerRuntime, ExecSpec } from '../runtime/container-runtime.js';
import { clickhouseDump, clickhouseRestore } from './backup-clickhouse.js';
import { redisRestore } from './backup-redis.js';

export const BACKUP_FORMATS: Record<Engine, { format: string; extension: string }> = {
  postgres: { format: 'custom', extension: 'dump' },
  timeseries: { format: 'custom', extension: 'dump' },
  mysql: { format: 'sql', extension: 'sql' },
  redis: { format: 'rdb', extension: 'rdb' },
  columnar: { format: 'native', extension: 'tar' },
  mongodb: { format: 'archive', extension: 'archive.gz' },
};

/** A database service's running container and its variables (the official images' ones). */
export interface BackupTarget {
  container: string;
  engine: Engine;
  env: Record<string, string>;
}

/** A dump or restore tool that failed; the message carries its stderr, never a password. */
export class BackupToolError extends Error {}

/**
 * Runs a tool inside the engine's own container (so its version matches the server's). Passwords reach it
 * through the exec's environment or a file it writes itself, never as arguments.
 */
export async function runTool(runtime: ContainerRuntime, target: BackupTarget, what: string, spec: ExecSpec, signal: AbortSignal): Promise<string> {
  const result = await runtime.exec(target.container, spec, signal);
  if (result.exitCode !== 0) throw new BackupToolError(`${what} failed (exit ${result.exitCode}): ${result.stderr || 'no output'}`);
  return result.stderr;
}

const postgresLogin = (env: Record<string, string>) => {
  const user = env.POSTGRES_USER || 'postgres';
  return { args: ['-U', user, '-d', env.POSTGRES_DB || user], env: { PGPASSWORD: env.POSTGRES_PASSWORD ?? '' } };
};

/** The engine's own dump, streamed to `out` as the tool writes it. */
export async function dumpDatabase(runtime: ContainerRuntime, target: BackupTarget, out: Writable, signal: AbortSignal): Promise<void> {
  const { env } = target;
  switch (target.engine) {
    case 'postgres':
    case 'timeseries': {
      const login = postgresLogin(env);
      await runTool(runtime, target, 'pg_dump', { cmd: ['pg_dump', '-Fc', ...login.args], env: login.env, stdout: out }, signal);
      return;
    }
    case 'mysql':
      await runTool(
        runtime,
        target,
        'mysqldump',
        {
          cmd: ['mysqldump', '-uroot', '--single-transaction', '--routines', '--triggers', '--events', '--databases', env.MYSQL_DATABASE || 'mysql'],
          env: { MYSQL_PWD: env.MYSQL_ROOT_PASSWORD ?? '' },
          stdout: out,
        },
        signal,
      );
      return;
    case 'redis':
      // A consistent snapshot the server takes for a replica. Not `--rdb -`: with diskless replication
      // redis-cli leaves the transfer's end mark on a stream it cannot truncate, so it goes through a file.
      await runTool(runtime, target, 'redis-cli --rdb', { cmd: ['sh', '-c', REDIS_SNAPSHOT], env: { REDISCLI_AUTH: env.REDIS_PASSWORD ?? '' }, stdout: out }, signal);
      return;
    case 'columnar':
      await clickhouseDump(runtime, target, out, signal);
      return;
    case 'mongodb':
      await runTool(runtime, target, 'mongodump', { cmd: ['sh', '-c', MONGO_LOGIN + 'mongodump --config "$cfg" --username "$MONGO_USER" --authenticationDatabase admin --archive --gzip'], env: mongoEnv(env), stdout: out }, signal);
      return;
  }
}

/** Replaces what the dump holds with the dump's contents; resolves once the database answers with them. */
export async function restoreDatabase(runtime: ContainerRuntime, target: BackupTarget, dump: Readable, _size: number, signal: AbortSignal): Promise<void> {
  const { env } = target;
  switch (target.engine) {
    case 'postgres':
    case 'timeseries': {
      const login = postgresLogin(env);
      // One transaction: a dump that fails halfway leaves the database as it was.
      await runTool(runtime, target, 'pg_restore', { cmd: ['pg_restore', '--clean', '--if-exists', '--single-transaction', ...login.args], env: login.env, stdin: dump }, signal);
      return;
    }
    case 'mysql':
      await runTool(runtime, target, 'mysql', { cmd: ['mysql', '-uroot'], env: { MYSQL_PWD: env.MYSQL_ROOT_PASSWORD ?? '' }, stdin: dump }, signal);
      return;
    case 'redis':
      await redisRestore(runtime, target, dump, signal);
      return;
    case 'columnar':
      await clickhouseRestore(runtime, target, dump, signal);
      return;
    case 'mongodb':
      await runTool(runtime, target, 'mongorestore', { cmd: ['sh', '-c', MONGO_LOGIN + 'mongorestore --config "$cfg" --username "$MONGO_USER" --authenticationDatabase admin --archive --gzip --drop'], env: mongoEnv(env), stdin: dump }, signal);
      return;
  }
}

const REDIS_SNAPSHOT = `set -e
find /data -maxdepth 1 -name '.slipway-snapshot.*' -mmin +1440 -delete 2>/dev/null || true
f=$(mktemp -p /data .slipway-snapshot.XXXXXX); trap 'rm -f "$f"' EXIT
redis-cli --no-auth-warning --rdb "$f" >&2
cat "$f"`;

// mongodump and mongorestore read the password from a config file, so it is not on their command line.
const MONGO_LOGIN = 'set -e; cfg=$(mktemp); trap \'rm -f "$cfg"\' EXIT; printf "password: \\"%s\\"\\n" "$MONGO_PW" > "$cfg"; ';
const mongoEnv = (env: Record<string, string>) => ({
  MONGO_USER: env.MONGO_INITDB_ROOT_USERNAME ?? '',
  MONGO_PW: (env.MONGO_INITDB_ROOT_PASSWORD ?? '').replace(/["\\]/g, '\\$&'),
});
