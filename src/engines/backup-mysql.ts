import type { Readable, Writable } from 'node:stream';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { BackupToolError, consumingAllInput, runTool, type BackupTarget } from './backup-tool-run.js';
import { endpointOf } from './engine-plans.js';

/** Root, who can read routines, triggers and events; the app's user only when root's password is not known. */
function login(target: BackupTarget) {
  const { env } = target;
  const app = endpointOf('mysql', env, 0, null);
  const asRoot = env.MYSQL_ROOT_PASSWORD !== undefined || !app.user;
  return { user: asRoot ? 'root' : app.user!, env: { MYSQL_PWD: (asRoot ? env.MYSQL_ROOT_PASSWORD : app.password) ?? '' } };
}

function databaseOf(target: BackupTarget): string {
  const database = target.env.MYSQL_DATABASE;
  if (!database) throw new BackupToolError('the service has no MYSQL_DATABASE: there is no database of its own to dump');
  return database;
}

/**
 * The dump is staged and checked for mysqldump's closing line before anything runs: the statements of a
 * truncated dump would otherwise drop and recreate the tables it reaches, one by one, and stop there.
 */
const RESTORE = `set -e
dump=$(mktemp); trap 'rm -f "$dump"' EXIT
cat > "$dump"
case "$(tail -c 80 "$dump")" in
  *"-- Dump completed"*) ;;
  *) echo "the dump is incomplete: it does not end with mysqldump's closing line" >&2; exit 3 ;;
esac
mysql --user="$1" --default-character-set=utf8mb4 < "$dump"`;

export async function dumpMysql(runtime: ContainerRuntime, target: BackupTarget, out: Writable, signal: AbortSignal) {
  const { user, env } = login(target);
  const cmd = ['mysqldump', `--user=${user}`, '--single-transaction', '--routines', '--triggers', '--events', '--hex-blob', '--default-character-set=utf8mb4', '--databases', '--', databaseOf(target)];
  await runTool(runtime, target, 'mysqldump', { cmd, env, stdout: out }, signal);
}

export async function restoreMysql(runtime: ContainerRuntime, target: BackupTarget, dump: Readable, signal: AbortSignal) {
  const { user, env } = login(target);
  await runTool(runtime, target, 'mysql', { cmd: consumingAllInput(RESTORE, [user]), env, stdin: dump }, signal);
}
