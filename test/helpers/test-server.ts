import { spawnSync } from 'node:child_process';
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

export interface TestServer extends RunningServer {
  dataDir: string;
  /** The bootstrap key: all projects, write. */
  key: string;
  call(method: string, path: string, options?: { body?: unknown; raw?: string; key?: string | null; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  stopKeepingData(): Promise<void>;
  /** Everything the server logged, when started with `SLIPWAY_LOG: 'json'` (silent otherwise). */
  logs(): string;
}

/** A real Slipway on an ephemeral port with its own data directory. */
export async function startTestServer(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'slipway-test-'));
  const ports = env.SLIPWAY_HOST_PORT_RANGE ? null : claimHostPorts();
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
    // The local servers the test points Slipway at (its Git server, fake DNS APIs) are allowed, exactly they.
    ...allowingConfiguredServers(env),
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
      await server.close();
      // Caddy and the NAT rules outlive Slipway on purpose; a test's go with its test.
      spawnSync('pkill', ['-f', `${dir}/caddy/bootstrap.json`]);
      await server.app.upstreams?.remove();
      ports?.release();
      if (dataDir) return;
      // Nothing outlives a data directory the helper made: the engine's networks are few (about 30 by default).
      if (existsSync('/var/run/docker.sock')) await (await import('./docker.js')).removeInstanceLeftovers(instance).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
