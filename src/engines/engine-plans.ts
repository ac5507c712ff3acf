import type { Engine } from '../shared/database-engine.js';
import { ENGINE_CATALOGUE } from '../../commands/service/engines.js';
import type { ContainerFile, NetworkAddresses } from '../runtime/container-runtime.js';
import type { EngineEndpoint } from './browser.js';
import { postgresHba } from './postgres-hba.js';
import { redisServer } from './redis-config.js';

/** Where each official image keeps its data; the service's volume is mounted there. */
export const DATA_DIRS: Record<Engine, string> = {
  postgres: '/var/lib/postgresql/data',
  timeseries: '/var/lib/postgresql/data',
  mysql: '/var/lib/mysql',
  redis: '/data',
  mongodb: '/data/db',
  columnar: '/var/lib/clickhouse',
};

/**
 * Variables the official images read only when they initialise an empty data directory. Changing one later
 * would not change what the database holds, so Slipway accepts a new value only when the engine already
 * accepts it (see database-credentials.ts). Redis reads its password from the file Slipway writes at every
 * deployment and ClickHouse rewrites its user from the variables at every start: theirs apply at the next deployment.
 */
export const INIT_ONLY_CREDENTIALS: Record<Engine, readonly string[]> = {
  postgres: ['POSTGRES_USER', 'POSTGRES_PASSWORD'],
  timeseries: ['POSTGRES_USER', 'POSTGRES_PASSWORD'],
  mysql: ['MYSQL_USER', 'MYSQL_PASSWORD', 'MYSQL_ROOT_PASSWORD'],
  mongodb: ['MONGO_INITDB_ROOT_USERNAME', 'MONGO_INITDB_ROOT_PASSWORD'],
  redis: [],
  columnar: [],
};

export interface ServerTls {
  certPem: string;
  keyPem: string;
  caPem: string;
}

export interface EnginePlan {
  image: string;
  port: number;
  env: Record<string, string>;
  /** Arguments after the image's entrypoint; undefined keeps the image's own command. */
  command: string[] | undefined;
  dataDir: string;
  files: ContainerFile[];
}

const TLS_DIR = '/etc/slipway-tls';

function postgresCommand(
  env: Record<string, string>,
  logicalReplication: boolean,
  tls: ServerTls | null,
  network: readonly NetworkAddresses[],
): { command: string[] | undefined; files: ContainerFile[] } {
  const settings: string[] = [];
  if (logicalReplication) settings.push('wal_level=logical', 'max_replication_slots=10', 'max_wal_senders=10');
  if (!tls) {
    const args = ['postgres', ...settings.flatMap((s) => ['-c', s])];
    return { command: settings.length > 0 ? args : undefined, files: [] };
  }
  settings.push(
    'ssl=on',
    `ssl_cert_file=${TLS_DIR}/server.crt`,
    `ssl_key_file=${TLS_DIR}/pg/server.key`,
    `ssl_ca_file=${TLS_DIR}/ca.crt`,
    `hba_file=${TLS_DIR}/pg_hba.conf`,
  );
  const root = (path: string, content: string, mode: number): ContainerFile => ({ path: `${TLS_DIR}/${path}`, content, mode, uid: 0, gid: 0 });
  // The server refuses a key another user can read, and the postgres user's id differs between images
  // (999 on Debian, 70 on Alpine): the key is handed over by name before the image's own entrypoint runs. Its
  // directory stays root's and the key is given away only once its mode is set, so root (again at every start)
  // overrides no permission and changes the mode of no file it does not own.
  const key = `${TLS_DIR}/pg/server.key`;
  const handOver = `install -d -m 755 ${TLS_DIR}/pg && install -m 600 ${TLS_DIR}/server.key ${key} && chown postgres:postgres ${key} && exec docker-entrypoint.sh "$@"`;
  return {
    command: ['sh', '-c', handOver, 'sh', 'postgres', ...settings.flatMap((s) => ['-c', s])],
    files: [
      root('server.crt', tls.certPem, 0o644),
      root('ca.crt', tls.caPem, 0o644),
      root('server.key', tls.keyPem, 0o600),
      root('pg_hba.conf', postgresHba(env, network), 0o644),
    ],
  };
}

/** How to run an engine's official image with the service's resolved variables. */
export function enginePlan(
  engine: Engine,
  image: string,
  env: Record<string, string>,
  options: {
    logicalReplication: boolean;
    tls: ServerTls | null;
    /** The project network's ranges: with TLS, connections from outside them must use it. */
    network: readonly NetworkAddresses[];
  },
): EnginePlan {
  const base = { image, port: ENGINE_CATALOGUE[engine].port, env, dataDir: DATA_DIRS[engine] };
  switch (engine) {
    case 'postgres':
    case 'timeseries':
      return { ...base, ...postgresCommand(env, options.logicalReplication, options.tls, options.network) };
    case 'redis':
      return { ...base, ...redisServer(env) };
    case 'columnar':
      return { ...base, env: { CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT: '1', ...env }, command: undefined, files: [] };
    case 'mysql':
    case 'mongodb':
      return { ...base, command: undefined, files: [] };
  }
}

/** Who Slipway connects as, from the service's resolved variables (the official images' defaults otherwise). */
export function endpointOf(engine: Engine, env: Record<string, string>, port: number, caPem: string | null): EngineEndpoint {
  const at = { host: '127.0.0.1', port };
  switch (engine) {
    case 'postgres':
    case 'timeseries': {
      const user = env.POSTGRES_USER || 'postgres';
      return { ...at, user, password: env.POSTGRES_PASSWORD ?? null, database: env.POSTGRES_DB || user, tls: caPem ? { ca: caPem, servername: 'localhost' } : null };
    }
    case 'mysql': {
      const asUser = Boolean(env.MYSQL_USER && env.MYSQL_PASSWORD);
      return {
        ...at,
        user: asUser ? env.MYSQL_USER! : 'root',
        password: (asUser ? env.MYSQL_PASSWORD : env.MYSQL_ROOT_PASSWORD) ?? null,
        database: env.MYSQL_DATABASE || null,
        tls: null,
      };
    }
    case 'redis':
      return { ...at, user: null, password: env.REDIS_PASSWORD || null, database: null, tls: null };
    case 'mongodb':
      return {
        ...at,
        user: env.MONGO_INITDB_ROOT_USERNAME || null,
        password: env.MONGO_INITDB_ROOT_PASSWORD || null,
        database: env.MONGO_INITDB_DATABASE || 'test',
        tls: null,
      };
    case 'columnar':
      return { ...at, user: env.CLICKHOUSE_USER || 'default', password: env.CLICKHOUSE_PASSWORD ?? '', database: env.CLICKHOUSE_DB || 'default', tls: null };
  }
}
