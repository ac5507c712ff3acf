import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ENGINE_CATALOGUE } from '../../../commands/service/engines.js';
import { ENGINES, type Engine } from '../../shared/database-engine.js';
import { isLoopbackHost } from '../../network.js';
import { answer, apiClient, CliError, type Api } from './client.js';
import { credentialsFile } from './credentials.js';
import { out } from './output.js';
import { findService, type ServiceSummary } from './resolve.js';

/** The engine's URL, as its own clients take it, reaching the database from this machine. */
export interface Connection {
  engine: Engine;
  url: URL;
}

function engineOf(service: ServiceSummary): Engine {
  const engine = service.repoFullName?.replace(/^database:/, '');
  if (service.repoUrl !== 'database' || !ENGINES.includes(engine as Engine)) throw new CliError(`${service.slug} is not a database service`);
  return engine as Engine;
}

/**
 * The service's own connection URL (its credentials, from the overview) with the host and port that reach it
 * from here: the loopback binding when the server is this machine, else its public host name and port.
 */
async function connectionOf(api: Api, serverUrl: string, service: ServiceSummary): Promise<Connection> {
  const engine = engineOf(service);
  const { env } = await answer(api.GET('/api/services/{serviceId}/overview', { params: { path: { serviceId: service.id } } }));
  const variable = ENGINE_CATALOGUE[engine].urlVariable;
  const value = env.find((v) => v.key === variable)?.resolvedValue;
  if (!value) throw new CliError(`${service.slug} has no ${variable} variable to take the credentials from`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${service.slug}'s ${variable} is not a URL`);
  }
  if (isLoopbackHost(new URL(serverUrl).hostname)) {
    // Published on 127.0.0.1 (or every address when public) of the server's machine: this one.
    url.hostname = '127.0.0.1';
    url.port = String(service.hostPort);
  } else if (service.databasePublicEnabled) {
    const { tls } = await answer(api.GET('/api/services/{serviceId}/database/tls', { params: { path: { serviceId: service.id } } }));
    url.hostname = tls.publicHostname;
    url.port = String(tls.publicPort);
  } else {
    throw new CliError(
      `${service.slug} listens only on the loopback of the server at ${serverUrl}: run slipway db connect on that machine, or make it reachable with databasePublicEnabled`,
    );
  }
  if (engine === 'postgres' || engine === 'timeseries') await requireVerifiedTls(api, service, url);
  return { engine, url };
}

/**
 * Postgres takes connections from outside its project network over TLS only: the URL asks for a verified
 * certificate (it names 127.0.0.1 and the public host name) against the installation's authority, saved beside
 * the CLI's credentials.
 */
async function requireVerifiedTls(api: Api, service: ServiceSummary, url: URL) {
  const path = { params: { path: { serviceId: service.id } } };
  const { tls } = await answer(api.GET('/api/services/{serviceId}/database/tls', path));
  if (!tls.active || !tls.caCertAvailable) return;
  const pem = await answer(api.GET('/api/services/{serviceId}/database/tls/ca', { ...path, parseAs: 'text' }));
  const file = join(dirname(credentialsFile()), 'ca', `${service.id}.pem`);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, pem, { mode: 0o600 });
  chmodSync(file, 0o600);
  url.searchParams.set('sslmode', 'verify-full');
  url.searchParams.set('sslrootcert', file);
}

interface ClientCommand {
  binary: string[];
  args: string[];
  /** Secrets go to the client through its environment, never its arguments (which other local users can read). */
  env: Record<string, string>;
  /** Where Debian has it. */
  debian: string;
}

const decoded = (s: string) => decodeURIComponent(s);

/** How each engine's own client is started on a connection. */
export function clientFor({ engine, url }: Connection): ClientCommand {
  const password = decoded(url.password);
  const user = decoded(url.username);
  const database = decoded(url.pathname.replace(/^\//, ''));
  switch (engine) {
    case 'postgres':
    case 'timeseries': {
      const bare = new URL(url);
      bare.password = '';
      return { binary: ['psql'], args: [bare.toString()], env: { PGPASSWORD: password }, debian: 'postgresql-client' };
    }
    case 'mysql':
      return {
        binary: ['mysql', 'mariadb'],
        args: ['--protocol=TCP', '-h', url.hostname, '-P', url.port, '-u', user, ...(database ? [database] : [])],
        env: { MYSQL_PWD: password },
        debian: 'default-mysql-client (or mariadb-client)',
      };
    case 'redis':
      return { binary: ['redis-cli'], args: ['-h', url.hostname, '-p', url.port, '--user', user || 'default'], env: { REDISCLI_AUTH: password }, debian: 'redis-tools' };
    case 'mongodb':
      // mongosh reads no password from its environment: it asks for it when the URL has none.
      return { binary: ['mongosh'], args: [Object.assign(new URL(url), { password: '' }).toString()], env: {}, debian: 'none: mongosh comes from MongoDB’s own repository (package mongodb-mongosh)' };
    case 'columnar':
      throw new CliError(
        'ClickHouse is published on its HTTP port only, which clickhouse-client does not speak: use slipway db connect --print with curl, or slipway db query',
      );
  }
}

export async function connect(serviceRef: string, passthrough: string[], o: { print?: boolean; project?: string; json?: boolean }): Promise<number> {
  const { api, url: serverUrl } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const connection = await connectionOf(api, serverUrl, service);
  if (o.print) {
    out(o.json ? JSON.stringify({ engine: connection.engine, url: connection.url.toString() }) : connection.url.toString());
    return 0;
  }
  const client = clientFor(connection);
  if (connection.engine === 'mongodb') process.stderr.write(`mongosh asks for the password: it is in what slipway db connect ${serviceRef} --print shows\n`);
  // Ctrl-C belongs to the client (psql cancels its query): this process waits for it rather than dying.
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  try {
    return runFirst(client, passthrough, serviceRef);
  } finally {
    process.off('SIGINT', ignore);
  }
}

function runFirst(client: ClientCommand, passthrough: string[], serviceRef: string): number {
  for (const binary of client.binary) {
    const run = spawnSync(binary, [...client.args, ...passthrough], { stdio: 'inherit', env: { ...process.env, ...client.env } });
    if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') continue;
    if (run.error) throw new CliError(`${binary}: ${run.error.message}`);
    return run.status ?? 1;
  }
  throw new CliError(
    `${client.binary.join(' or ')} is not installed: it is in the Debian package ${client.debian}; or print the connection string with slipway db connect ${serviceRef} --print`,
  );
}
