import { setTimeout as sleep } from 'node:timers/promises';
import type { Engine } from '../../commands/service/fields.js';
import type { EngineEndpoint } from '../../src/engines/browser.js';
import { docker } from './docker.js';
import { required } from './requirements.js';

// Another tag tries changed stand-ins (`docker build -t slipway/db-…:<tag>`) without replacing the shared ones.
const TAG = process.env.SLIPWAY_TEST_DB_IMAGE_TAG || 'bookworm';

/** Stand-ins for the official images, built from Debian packages by `npm run images` (scripts/lib/docker.sh). */
export const DB_TEST_IMAGES: Record<Exclude<Engine, 'mongodb'>, string> = {
  postgres: `slipway/db-postgres:${TAG}`,
  // TimescaleDB is not in Debian: the Postgres stand-in follows the same contract.
  timeseries: `slipway/db-postgres:${TAG}`,
  mysql: `slipway/db-mysql:${TAG}`,
  redis: `slipway/db-redis:${TAG}`,
  columnar: `slipway/db-clickhouse:${TAG}`,
};

/** Slipway's image settings pointed at the stand-ins. */
export const DB_IMAGE_ENV = {
  SLIPWAY_DB_IMAGE_POSTGRES: DB_TEST_IMAGES.postgres,
  SLIPWAY_DB_IMAGE_TIMESERIES: DB_TEST_IMAGES.timeseries,
  SLIPWAY_DB_IMAGE_MYSQL: DB_TEST_IMAGES.mysql,
  SLIPWAY_DB_IMAGE_REDIS: DB_TEST_IMAGES.redis,
  SLIPWAY_DB_IMAGE_COLUMNAR: DB_TEST_IMAGES.columnar,
};

/** Why the database images cannot be used here, or false. */
export async function dbImagesUnavailable(): Promise<string | false> {
  try {
    await docker.ping();
  } catch {
    return 'no Docker engine answers on /var/run/docker.sock (npm test installs and starts one)';
  }
  for (const image of new Set(Object.values(DB_TEST_IMAGES))) {
    try {
      await docker.getImage(image).inspect();
    } catch {
      return `image ${image} is missing (npm run images builds it)`;
    }
  }
  return false;
}

export const requireDbImages = async () => required(await dbImagesUnavailable());

const PORTS: Record<Exclude<Engine, 'mongodb'>, number> = { postgres: 5432, timeseries: 5432, mysql: 3306, redis: 6379, columnar: 8123 };

interface Contract {
  env: Record<string, string>;
  args: string[];
  user: string;
  database: string | null;
}

/** The official images' variables for a user, a password and a database, and the endpoint they give. */
function contract(engine: Exclude<Engine, 'mongodb'>, password: string): Contract {
  switch (engine) {
    case 'postgres':
    case 'timeseries':
      return { env: { POSTGRES_USER: 'app', POSTGRES_PASSWORD: password, POSTGRES_DB: 'appdb' }, args: [], user: 'app', database: 'appdb' };
    case 'mysql':
      return {
        env: { MYSQL_ROOT_PASSWORD: `${password}-root`, MYSQL_DATABASE: 'appdb', MYSQL_USER: 'app', MYSQL_PASSWORD: password },
        args: [],
        user: 'app',
        database: 'appdb',
      };
    case 'redis':
      // The official image reads no password variable: the password is an argument.
      return { env: {}, args: ['redis-server', '--requirepass', password], user: 'default', database: null };
    case 'columnar':
      return { env: { CLICKHOUSE_USER: 'app', CLICKHOUSE_PASSWORD: password, CLICKHOUSE_DB: 'appdb' }, args: [], user: 'app', database: 'appdb' };
  }
}

export interface EngineContainer {
  name: string;
  endpoint: EngineEndpoint;
  stop(): Promise<void>;
}

/**
 * Runs an engine's stand-in image as its official image would be run (same variables, same arguments),
 * published on a loopback port, and waits until `probe` succeeds against it.
 */
export async function startEngineContainer(
  engine: Exclude<Engine, 'mongodb'>,
  probe: (endpoint: EngineEndpoint) => Promise<void>,
  options: { password?: string; timeoutMs?: number; contract?: Partial<Contract>; binds?: string[] } = {},
): Promise<EngineContainer> {
  const password = options.password ?? 'pw-' + Math.random().toString(36).slice(2);
  const c = { ...contract(engine, password), ...options.contract };
  const port = `${PORTS[engine]}/tcp`;
  const name = `slipway-test-${engine}-${process.pid}-${Date.now().toString(36)}`;
  const container = await docker.createContainer({
    name,
    Image: DB_TEST_IMAGES[engine],
    Env: Object.entries(c.env).map(([k, v]) => `${k}=${v}`),
    ...(c.args.length > 0 ? { Cmd: c.args } : {}),
    ExposedPorts: { [port]: {} },
    Labels: { 'slipway.test': 'engine' },
    HostConfig: { PortBindings: { [port]: [{ HostIp: '127.0.0.1', HostPort: '' }] }, Binds: options.binds },
  });
  const stop = () => container.remove({ force: true, v: true }).then(() => undefined, () => undefined);
  try {
    await container.start();
    const info = await container.inspect();
    const hostPort = Number(info.NetworkSettings.Ports[port]![0]!.HostPort);
    const endpoint: EngineEndpoint = { host: '127.0.0.1', port: hostPort, user: c.user, password, database: c.database, tls: null };
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      try {
        await probe(endpoint);
        return { name, endpoint, stop };
      } catch (error) {
        const state = (await container.inspect()).State;
        if (!state.Running) throw new Error(`${engine} container exited with ${state.ExitCode}: ${await logsOf(name)}`);
        if (Date.now() > deadline) throw new Error(`${engine} did not answer within the deadline: ${String(error)}\n${await logsOf(name)}`);
        await sleep(200);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

async function logsOf(name: string) {
  const out = (await docker.getContainer(name).logs({ stdout: true, stderr: true, tail: 40 })) as unknown as Buffer;
  return out.toString('utf8').replace(/[\x00-\x08]/g, '');
}
