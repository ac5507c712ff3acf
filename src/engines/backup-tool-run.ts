import { Writable } from 'node:stream';
import type { Engine } from '../shared/database-engine.js';
import type { ContainerRuntime, ExecSpec } from '../runtime/container-runtime.js';

/** A database service's running container and its resolved variables (the official images' ones). */
export interface BackupTarget {
  container: string;
  engine: Engine;
  env: Record<string, string>;
}

/** A dump or restore tool that failed; the message carries its stderr, never a password. */
export class BackupToolError extends Error {
  override readonly name = 'BackupToolError';
}

const SECRET_NAME = /PASS|PWD|AUTH|SECRET/i;

/** Every password-like value of the service's variables and of the exec's environment. */
function secretsOf(target: BackupTarget, spec: ExecSpec): string[] {
  const values = [...Object.entries(target.env), ...Object.entries(spec.env ?? {})].filter(([name, value]) => SECRET_NAME.test(name) && value !== '');
  // Longest first, so a password containing another is replaced whole.
  return [...new Set(values.map(([, value]) => value))].sort((a, b) => b.length - a.length);
}

/** A tool could still echo a password (a connection string in an error): it never reaches a message. */
export function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join('***'), text);
}

/**
 * Runs a tool inside the engine's own container, whose tools match the server's version. Passwords reach it
 * through the exec's environment or stdin only: an argument shows in `ps` and `docker inspect`.
 * Answers the tool's stderr; a non-zero exit rejects with BackupToolError.
 */
export async function runTool(runtime: ContainerRuntime, target: BackupTarget, what: string, spec: ExecSpec, signal: AbortSignal): Promise<string> {
  const result = await runtime.exec(target.container, spec, signal);
  const stderr = redact(result.stderr, secretsOf(target, spec));
  if (result.exitCode !== 0) throw new BackupToolError(`${what} failed (exit ${result.exitCode}): ${stderr || 'it wrote no message'}`);
  return stderr;
}

/** Like runTool, for a command whose short output is its answer. */
export async function runToolForText(runtime: ContainerRuntime, target: BackupTarget, what: string, spec: ExecSpec, signal: AbortSignal) {
  let stdout = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stdout += chunk.toString('utf8');
      done();
    },
  });
  const stderr = await runTool(runtime, target, what, { ...spec, stdout: sink }, signal);
  return { stdout: redact(stdout, secretsOf(target, spec)), stderr };
}

/**
 * The command that runs a restore script fed on stdin. A script that stops reading early (a refused login, a
 * damaged dump) would leave the rest of the stream unsent and its own message lost with the broken pipe:
 * whatever it leaves is read and discarded before the exit status is given back.
 */
export const consumingAllInput = (script: string, args: readonly string[] = []) => [
  'sh',
  '-c',
  'sh -c "$0" sh "$@"; status=$?; cat > /dev/null; exit $status',
  script,
  ...args,
];
