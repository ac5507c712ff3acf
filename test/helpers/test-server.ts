import './untraced-children.js';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type RunningServer } from '../../src/cli/serve.js';
import { loadConfig } from '../../src/config.js';
import { loadInstanceId } from '../../src/db/instance-id.js';
import { createLogger } from '../../src/logger.js';
import { claimHostPorts } from './host-ports.js';
import { checkAnswer } from './openapi-check.js';
import { allowingConfiguredServers } from './outbound.js';
import { seedPgliteDir } from './pglite-template.js';
import { databaseOf } from './postgres-server.js';
import { report, whatIsAlive } from './lingering.js';

export interface TestServer extends RunningServer {
  dataDir: string;
  /** The bootstrap key: all projects, write. */
  key: string;
  call(method: string, path: string, options?: { body?: unknown; raw?: string; key?: string | null; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  stopKeepingData(): Promise<void>;
  /** Everything the server logged, when started with `SLIPWAY_LOG: 'json'` (silent otherwise). */
  logs(): string;
}

/** In a test server's env: its store is PGlite, the installation's default, whatever the suite has (see below). */
export const ON_PGLITE = { SLIPWAY_TEST_STORAGE: 'pglite' } as const;

/**
 * Where a test server keeps its event log and read models. Most tests are about what Slipway does, not where it
 * keeps it: under npm test they run on a database of their own on the suite's Postgres server, where a statement
 * is native work instead of WebAssembly's (a third of a test's CPU on PGlite; the suite is CPU-bound). PGlite
 * keeps the API suite, the store contract, the rebuild and concurrency variants marked PGlite and every test of
 * the embedded store itself (ON_PGLITE; a store that sleeps exists only there). Without a server, all is PGlite.
 */
async function storageFor(env: Record<string, string>, dir: string): Promise<{ url: string; drop: () => Promise<void> } | null> {
  if (env.DATABASE_URL || env.SLIPWAY_TEST_STORAGE === 'pglite' || env.SLIPWAY_STORE_SLEEP_AFTER || !process.env.TEST_DATABASE_URL) return null;
  // Named after the data directory: a server started again on it finds its database.
  return databaseOf(process.env.TEST_DATABASE_URL, `slipway_t_${createHash('sha256').update(dir).digest('hex').slice(0, 16)}`);
}

/** A real Slipway on an ephemeral port with its own data directory. */
/** A close() slower than this is reported with what it waits on. */
const STUCK_MS = 30_000;

export async function startTestServer(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'slipway-test-'));
  const ports = env.SLIPWAY_HOST_PORT_RANGE ? null : claimHostPorts();
  const { SLIPWAY_TEST_STORAGE: _storage, ...slipwayEnv } = env;
  const database = await storageFor(env, dir);
  const config = loadConfig({
    SLIPWAY_DATA_DIR: dir,
    SLIPWAY_PORT: '0',
    SLIPWAY_HOST: '127.0.0.1',
    SLIPWAY_PROXY: 'off',
    // Tests that want certificates turn HTTPS on with their own ports; by default nothing listens on 443.
    SLIPWAY_HTTPS: 'off',
    SLIPWAY_LOG: 'silent',
    SLIPWAY_PUBLIC_IP: '203.0.113.7',
    // Deployments fail at once unless a test asks for the engine (test/helpers/deploy.ts does).
    SLIPWAY_DOCKER_SOCKET: '/nonexistent/docker.sock',
    // The suites send many unknown keys on purpose from one address; the limit has tests of its own.
    SLIPWAY_KEY_FAILURES_PER_MINUTE: '100000',
    ...(ports ? { SLIPWAY_HOST_PORT_RANGE: ports.range } : {}),
    ...(database ? { DATABASE_URL: database.url } : {}),
    // The local servers the test points Slipway at (its Git server, fake DNS APIs) are allowed, exactly they.
    ...allowingConfiguredServers(slipwayEnv),
  });
  if (!config.databaseUrl) await seedPgliteDir(join(dir, 'pgdata'));
  let logs = '';
  const server = await serve(config, createLogger(config.silent, (line) => (logs += line)));
  const key = readFileSync(join(dir, 'bootstrap-key'), 'utf8').trim();
  const instance = await loadInstanceId(server.app.db);
  return {
    ...server,
    dataDir: dir,
    key,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      const useKey = options.key === undefined ? key : options.key;
      if (useKey !== null) headers.authorization = `Bearer ${useKey}`;
      let body: string | undefined;
      if (options.raw !== undefined) body = options.raw;
      else if (options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
      const response = await fetch(server.url + path, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Non-JSON bodies are returned as text.
      }
      checkAnswer(method, path, response.status, response.headers.get('content-type'), parsed);
      return { status: response.status, body: parsed, headers: response.headers };
    },
    stopKeepingData: () => server.close(),
    logs: () => logs,
    async close() {
      let step = 'the server';
      const stuck = setTimeout(() => report(`the test server's close() waits on ${step} after ${STUCK_MS / 1000} s: ${whatIsAlive()}\n`), STUCK_MS);
      stuck.unref();
      try {
        await server.close();
        // Caddy and the NAT rules outlive Slipway on purpose; a test's go with its test.
        spawnSync('pkill', ['-f', `${dir}/caddy/bootstrap.json`]);
        step = 'the upstream rules';
        await server.app.upstreams?.remove();
        ports?.release();
        if (dataDir) return;
        step = 'dropping its database';
        await database?.drop();
        step = 'the engine leftovers';
        // Nothing outlives a data directory the helper made: the engine's networks are few (about 30 by default).
        if (existsSync('/var/run/docker.sock')) await (await import('./docker.js')).removeInstanceLeftovers(instance).catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      } finally {
        clearTimeout(stuck);
      }
    },
  };
}
