import type { Readable, Writable } from 'node:stream';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { consumingAllInput, runTool, type BackupTarget } from './backup-tool-run.js';
import { endpointOf } from './engine-plans.js';

/**
 * mongodump and mongorestore take the password from a YAML config file (`--config`), written here into a
 * private temporary file removed at exit, so it is on no command line. Without a root user there is no login.
 * Untested here: no MongoDB server image can be obtained in this environment.
 */
const LOGIN = `set -e
config=$(mktemp); trap 'rm -f "$config"' EXIT
set --
if [ -n "$MONGO_USER" ]; then
  printf '%s\\n' "$MONGO_PASSWORD_CONFIG" > "$config"
  set -- --username "$MONGO_USER" --authenticationDatabase admin --config "$config"
fi
`;

function loginEnv(target: BackupTarget): Record<string, string> {
  const { user, password } = endpointOf('mongodb', target.env, 0, null);
  if (!user) return {};
  // A JSON string is a valid YAML double-quoted scalar: any password is written as it is.
  return { MONGO_USER: user, MONGO_PASSWORD_CONFIG: `password: ${JSON.stringify(password ?? '')}` };
}

export async function dumpMongodb(runtime: ContainerRuntime, target: BackupTarget, out: Writable, signal: AbortSignal) {
  await runTool(runtime, target, 'mongodump', { cmd: ['sh', '-c', `${LOGIN}mongodump "$@" --archive --gzip`], env: loginEnv(target), stdout: out }, signal);
}

export async function restoreMongodb(runtime: ContainerRuntime, target: BackupTarget, dump: Readable, signal: AbortSignal) {
  await runTool(runtime, target, 'mongorestore', { cmd: consumingAllInput(`${LOGIN}mongorestore "$@" --archive --gzip --drop`), env: loginEnv(target), stdin: dump }, signal);
}
