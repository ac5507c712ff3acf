import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerFile, ContainerRuntime } from '../runtime/container-runtime.js';

/** A libpq URL without its password, and the password, which reaches the tools in a file. */
export interface PostgresEndpoint {
  url: string;
  password: string | null;
}

export interface PostgresImportPlan {
  /** Idempotency: carries the import id, so a retried run finds (and removes) its own container. */
  name: string;
  /** The target's own image, so pg_dump and pg_restore match its server. */
  image: string;
  network: string;
  labels: Record<string, string>;
  source: PostgresEndpoint;
  /** The target as the project network reaches it (its slug). */
  target: PostgresEndpoint;
}

const decode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * The source URL the helper connects with: its password taken out (user info or `password` parameter), and
 * `hostaddr` set to the address that was checked, so libpq connects there without looking the name up again
 * while `host` still names the server for TLS verification.
 */
export function sourceEndpoint(url: string, address: string): PostgresEndpoint {
  const u = new URL(url);
  const password = u.searchParams.get('password') ?? (u.password ? decode(u.password) : null);
  u.password = '';
  u.searchParams.delete('password');
  u.searchParams.delete('hostaddr');
  if (address !== u.hostname.replace(/^\[(.*)\]$/, '$1')) u.searchParams.set('hostaddr', address);
  return { url: u.toString(), password: password || null };
}

const PASSWORDS = '/run/slipway-import';
// A .pgpass line matches any server; `\` and `:` are escaped with a backslash.
const passfileLine = (password: string) => `*:*:*:*:${password.replaceAll('\\', '\\\\').replaceAll(':', '\\:')}\n`;

/** The endpoint's URL naming its password file (written into the container, mode 0600), and that file. */
function withPassfile(endpoint: PostgresEndpoint, name: string): { url: string; file: ContainerFile | null } {
  if (!endpoint.password) return { url: endpoint.url, file: null };
  const path = `${PASSWORDS}/${name}.pgpass`;
  const u = new URL(endpoint.url);
  u.searchParams.set('passfile', path);
  return { url: u.toString(), file: { path, content: passfileLine(endpoint.password), mode: 0o600, uid: 0, gid: 0 } };
}

/**
 * `pg_dump -Fc | pg_restore --no-owner` in a helper container of the target's image on the project network,
 * so the source may be an outside host or another service of the project by its name. The URLs reach the
 * tools as environment variables without passwords; the passwords are files written into the container
 * before it starts (mode 0600), never its environment or arguments. Resolves when it exits 0; rejects with
 * its stderr.
 */
export async function importPostgres(runtime: ContainerRuntime, plan: PostgresImportPlan, signal: AbortSignal): Promise<void> {
  const source = withPassfile(plan.source, 'source');
  const target = withPassfile(plan.target, 'target');
  await runtime.remove(plan.name, 0);
  await runtime.run({
    name: plan.name,
    image: plan.image,
    env: { SOURCE_URL: source.url, TARGET_URL: target.url },
    labels: plan.labels,
    network: plan.network,
    aliases: [],
    internalPort: null,
    publish: false,
    command: ['bash', '-c', 'set -o pipefail; pg_dump -Fc --no-owner --dbname "$SOURCE_URL" | pg_restore --no-owner --no-acl --dbname "$TARGET_URL"'],
    files: [source.file, target.file].filter((f): f is ContainerFile => f !== null),
  });
  try {
    for (;;) {
      signal.throwIfAborted();
      const state = await runtime.inspect(plan.name, null);
      if (!state) throw new Error('the import container disappeared');
      if (!state.running) {
        if (state.exitCode === 0) return;
        const lines: string[] = [];
        for await (const l of runtime.logs(plan.name, { follow: false, tail: 20 })) lines.push(l.line);
        throw new Error(`pg_dump | pg_restore exited with ${state.exitCode}: ${lines.join('\n').trim() || 'no output'}`);
      }
      await sleep(250);
    }
  } finally {
    await runtime.remove(plan.name, 1).catch(() => undefined);
  }
}
