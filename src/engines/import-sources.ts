import { isIP } from 'node:net';
import type { ImportSource } from '../../commands/import/events.js';
import { isRunningServiceOf } from '../../projections/service-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { DestinationPolicy } from '../outbound/destination-policy.js';

/** Query parameters whose name says they hold a secret (`password`, `sslpassword`, `token`, `api_key`…). */
const SECRET_NAME = /pass|pwd|secret|token|key|auth|cred/i;

/** A source URL as people may see it: no user name or password, no parameter that may hold a secret. */
export function sourceLabelOf(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  for (const name of [...u.searchParams.keys()]) if (SECRET_NAME.test(name)) u.searchParams.delete(name);
  return u.toString();
}

/** Every form each secret of the URL (its password, a secret parameter's value) could take in a tool's message, replaced. */
export function redactSource(text: string, url: string): string {
  const u = new URL(url);
  const secrets = [u.password, ...[...u.searchParams].filter(([name]) => SECRET_NAME.test(name)).map(([, value]) => value)].filter(Boolean);
  let out = text;
  for (const secret of secrets) {
    for (const form of new Set([secret, safeDecode(secret), encodeURIComponent(secret)])) out = out.split(form).join('***');
  }
  return out;
}

const safeDecode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * libpq parameters a Postgres source URL may carry. Those that choose where or with which local file the tools
 * connect (host, hostaddr, port, service, passfile, sslkey, sslrootcert…) are refused: the destination is the
 * URL's host, checked, and files are Slipway's.
 */
const POSTGRES_PARAMETERS = new Set([
  'user',
  'password',
  'dbname',
  'sslmode',
  'connect_timeout',
  'application_name',
  'fallback_application_name',
  'options',
  'client_encoding',
  'channel_binding',
  'gssencmode',
  'require_auth',
  'ssl_min_protocol_version',
  'ssl_max_protocol_version',
  'sslcompression',
  'sslnegotiation',
  'sslsni',
  'target_session_attrs',
  'keepalives',
  'keepalives_idle',
  'keepalives_interval',
  'keepalives_count',
  'tcp_user_timeout',
]);

/** A Redis source URL says where and who: a password in the query is the only parameter taken. */
const REDIS_PARAMETERS = new Set(['password']);

export const DEFAULT_PORTS: Record<ImportSource, number> = { 'postgres-url': 5432, 'redis-url': 6379 };

/** What is wrong with a source URL beyond its scheme, or null. */
export function sourceUrlProblem(source: ImportSource, url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) return 'must name a host';
  if (!isIP(host) && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(host)) return 'must name one host (a name or an address)';
  const allowed = source === 'postgres-url' ? POSTGRES_PARAMETERS : REDIS_PARAMETERS;
  const refused = [...url.searchParams.keys()].filter((name) => !allowed.has(name));
  return refused.length ? `the parameter ${refused[0]} is not supported here` : null;
}

/** The URL's parts the import connects with: the password from the user info or the `password` parameter. */
export function sourcePartsOf(source: ImportSource, url: string) {
  const u = new URL(url);
  const password = u.searchParams.get('password') ?? (u.password ? safeDecode(u.password) : null);
  return {
    // Names are case-insensitive; a non-special URL keeps the case it was written in.
    host: u.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase(),
    port: Number(u.port) || DEFAULT_PORTS[source],
    username: u.username ? safeDecode(u.username) : null,
    password: password || null,
    tls: u.protocol === 'rediss:',
  };
}

const ipv4First = (addresses: string[]) => [...addresses].sort((a, b) => isIP(a) - isIP(b));

/**
 * Where the import helper (on the project's network) connects for the source: a running service of the
 * same project by its name, which Docker's DNS on that network answers; any other host at an address the
 * outbound policy checked now (the helper never resolves it again). IPv4 first: project networks often have
 * no IPv6.
 */
export async function sourceAddress(deps: { db: SqlExecutor; outbound: DestinationPolicy }, projectId: string, host: string, port: number): Promise<string> {
  if (await isRunningServiceOf(deps.db, projectId, host)) return host;
  return ipv4First(await deps.outbound.resolve(host, port))[0]!;
}

/** The same decision when a client asks for the import: 400 `forbidden_destination` for a refused source. */
export async function vetSource(deps: { db: SqlExecutor; outbound: DestinationPolicy }, projectId: string, host: string, port: number): Promise<void> {
  if (await isRunningServiceOf(deps.db, projectId, host)) return;
  await deps.outbound.vet(host, port, 'sourceUrl');
}
