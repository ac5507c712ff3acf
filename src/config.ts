import { join, resolve } from 'node:path';
import { packageRoot } from './package-root.js';
import { z } from 'zod';
import { hostname } from './shared/hostname.js';
import { baseUrl } from './outbound/base-url.js';
import { allowedDestinationsList } from './outbound/destination-entries.js';

const portRange = z
  .string()
  .regex(/^\d+-\d+$/, 'expected LOW-HIGH')
  .transform((s) => s.split('-').map(Number) as [number, number])
  .refine(([lo, hi]) => lo >= 1024 && hi <= 65535 && lo <= hi, 'ports must be within 1024-65535, low before high');

const optional = z
  .string()
  .optional()
  .transform((s) => (s && s.trim() !== '' ? s.trim() : undefined));

/** A duration in seconds (fractions allowed), read as milliseconds. */
const seconds = (fallback: number) =>
  z.coerce
    .number()
    .min(0)
    .max(86_400)
    .default(fallback)
    .transform((s) => Math.round(s * 1000));

const schema = z.object({
  SLIPWAY_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Loopback unless asked otherwise: the API is reached from outside through Caddy on `apiDomain`, over HTTPS.
  SLIPWAY_HOST: z.string().default('127.0.0.1'),
  SLIPWAY_DATA_DIR: z.string().default('.slipway'),
  DATABASE_URL: optional,
  EVENTSTORE_URL: optional,
  SLIPWAY_SECRET_KEY: optional,
  SLIPWAY_HOST_PORT_RANGE: portRange.default([20000, 29999]),
  SLIPWAY_ROOT_DOMAIN: optional,
  SLIPWAY_API_DOMAIN: optional.pipe(hostname.optional()),
  SLIPWAY_PUBLIC_IP: optional,
  SLIPWAY_GIT_BASE_URL: baseUrl.default('https://github.com'),
  SLIPWAY_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(43_200).default(60),
  SLIPWAY_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(720).default(12),
  SLIPWAY_REQUIRE_TWO_FACTOR: z.enum(['on', 'off', 'true', 'false', '1', '0']).default('off'),
  SLIPWAY_GIT_PUSH_LIMIT_MB: z.coerce.number().int().min(1).max(1_000_000).default(1024),
  SLIPWAY_GIT_REPO_LIMIT_MB: z.coerce.number().int().min(1).max(1_000_000).default(2048),
  SLIPWAY_CADDY_ADMIN: optional,
  SLIPWAY_CADDY_BIN: z.string().default('caddy'),
  SLIPWAY_CADDY_ADMIN_LISTEN: z.string().default('127.0.0.1:2019'),
  SLIPWAY_PROXY_HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(80),
  SLIPWAY_PROXY_HTTPS_PORT: z.coerce.number().int().min(1).max(65535).default(443),
  SLIPWAY_PROXY: z.enum(['caddy', 'off']).default('caddy'),
  SLIPWAY_HTTPS: z.enum(['on', 'off']).default('on'),
  SLIPWAY_ACME_EMAIL: optional,
  SLIPWAY_ACME_DIRECTORY_URL: z.string().url().default('https://acme-v02.api.letsencrypt.org/directory'),
  SLIPWAY_ACME_CA_ROOTS: optional,
  SLIPWAY_CLOUDFLARE_API_URL: baseUrl.default('https://api.cloudflare.com/client/v4'),
  SLIPWAY_DIGITALOCEAN_API_URL: baseUrl.default('https://api.digitalocean.com'),
  SLIPWAY_ALLOW_DESTINATIONS: allowedDestinationsList,
  SLIPWAY_DENY_PRIVATE_DESTINATIONS: z.enum(['on', 'off', 'true', 'false', '1', '0']).default('off'),
  SLIPWAY_AI_TIMEOUT: seconds(60),
  SLIPWAY_UPSTREAM_SWITCH: z.enum(['iptables', 'reload']).default('iptables'),
  SLIPWAY_KEEP_PROXY: z.enum(['on', 'off', 'true', 'false', '1', '0']).default('0'),
  SLIPWAY_UPSTREAM_CHECK: seconds(10),
  SLIPWAY_BODY_LIMIT: z.string().default('1mb'),
  SLIPWAY_KEY_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(20),
  SLIPWAY_DOCKER_SOCKET: z.string().default('/var/run/docker.sock'),
  SLIPWAY_DOCKER_CERTS_DIR: z.string().default('/etc/docker/certs.d'),
  SLIPWAY_CLUSTER_REGISTRY_IMAGE: z.string().min(1).default('registry:2'),
  SLIPWAY_CLUSTER_REGISTRY_PORT: z.coerce.number().int().min(1).max(65535).default(5443),
  SLIPWAY_CLUSTER_PROXY_IMAGE: z.string().min(1).default('caddy:2'),
  SLIPWAY_CLUSTER_ROUTER: z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, 'host:port')
    .default('127.0.0.1:7080'),
  SLIPWAY_CLUSTER_PROBE: optional,
  SLIPWAY_CLUSTER_AGENT_IMAGE: z.string().min(1).default('alpine/socat:latest'),
  SLIPWAY_CLUSTER_AGENT_PORT: z.coerce.number().int().min(1).max(65535).default(2386),
  SLIPWAY_CLUSTER_NODE_SOCKET: z.string().startsWith('/').default('/var/run/docker.sock'),
  SLIPWAY_DEPLOY_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  SLIPWAY_JOB_RUN_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  SLIPWAY_DOCKER_TIMEOUT: seconds(30),
  SLIPWAY_CLONE_TIMEOUT: seconds(300),
  SLIPWAY_BUILD_TIMEOUT: seconds(1800),
  SLIPWAY_PULL_TIMEOUT: seconds(600),
  SLIPWAY_RELEASE_COMMAND_TIMEOUT: seconds(900),
  SLIPWAY_START_TIMEOUT: seconds(60),
  SLIPWAY_WORKER_SETTLE: seconds(3),
  SLIPWAY_DRAIN: seconds(2),
  SLIPWAY_STOP_GRACE: seconds(10),
  SLIPWAY_PACK_NODE_IMAGE: z.string().default('node:20-bookworm-slim'),
  SLIPWAY_PACK_PYTHON_IMAGE: z.string().default('python:3.12-slim-bookworm'),
  SLIPWAY_PACK_GO_IMAGE: z.string().default('golang:1.22-bookworm'),
  SLIPWAY_PACK_RUN_IMAGE: z.string().default('debian:bookworm-slim'),
  SLIPWAY_PACK_STATIC_IMAGE: z.string().default('busybox:stable'),
  // The official images, each pinned to a major version; pulled when absent.
  SLIPWAY_DB_IMAGE_POSTGRES: z.string().min(1).default('postgres:16'),
  SLIPWAY_DB_IMAGE_TIMESERIES: z.string().min(1).default('timescale/timescaledb:latest-pg16'),
  SLIPWAY_DB_IMAGE_MYSQL: z.string().min(1).default('mysql:8.4'),
  SLIPWAY_DB_IMAGE_REDIS: z.string().min(1).default('redis:7'),
  SLIPWAY_DB_IMAGE_MONGODB: z.string().min(1).default('mongo:7'),
  SLIPWAY_DB_IMAGE_COLUMNAR: z.string().min(1).default('clickhouse/clickhouse-server:24.8'),
  SLIPWAY_DB_QUERY_TIMEOUT: seconds(30),
  SLIPWAY_DB_QUERY_MAX_ROWS: z.coerce.number().int().min(1).max(100_000).default(1000),
  SLIPWAY_DB_START_TIMEOUT: seconds(120),
  SLIPWAY_BACKUP_TIMEOUT: seconds(21_600),
  SLIPWAY_BACKUP_HOUR: z.coerce.number().int().min(0).max(23).default(3),
  SLIPWAY_LOG: z.enum(['json', 'silent']).default('json'),
  SLIPWAY_RECONCILE_INTERVAL: seconds(10),
  SLIPWAY_SETTLE_TIMEOUT: seconds(10),
  SLIPWAY_RESERVATION_GRACE: seconds(600),
  SLIPWAY_IDEMPOTENCY_ABANDON_AFTER: seconds(60),
  SLIPWAY_STORE_SLEEP_AFTER: seconds(60),
  SLIPWAY_NOTIFICATION_RETRY: seconds(30),
  SLIPWAY_USAGE_QUIET: seconds(60),
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return {
    port: c.SLIPWAY_PORT,
    host: c.SLIPWAY_HOST,
    dataDir: resolve(c.SLIPWAY_DATA_DIR),
    databaseUrl: c.DATABASE_URL,
    eventStoreUrl: c.EVENTSTORE_URL,
    secretKey: c.SLIPWAY_SECRET_KEY,
    hostPortRange: c.SLIPWAY_HOST_PORT_RANGE,
    gitBaseUrl: c.SLIPWAY_GIT_BASE_URL.replace(/\/+$/, ''),
    /** The largest pack one `git push` to Slipway may send. */
    gitPushLimitBytes: c.SLIPWAY_GIT_PUSH_LIMIT_MB * 1024 * 1024,
    /** The most a service's pushed repository may hold on disk, objects of pushes on their way included. */
    gitRepoLimitBytes: c.SLIPWAY_GIT_REPO_LIMIT_MB * 1024 * 1024,
    proxy: {
      mode: c.SLIPWAY_PROXY,
      externalAdminUrl: c.SLIPWAY_CADDY_ADMIN,
      binary: c.SLIPWAY_CADDY_BIN,
      adminListen: c.SLIPWAY_CADDY_ADMIN_LISTEN,
      httpPort: c.SLIPWAY_PROXY_HTTP_PORT,
      httpsPort: c.SLIPWAY_PROXY_HTTPS_PORT,
      /** PEM files of the roots a private ACME directory's own TLS certificate chains to (step-ca, pebble). */
      acmeCaRoots: c.SLIPWAY_ACME_CA_ROOTS?.split(',').map((f) => resolve(f.trim())).filter(Boolean) ?? [],
      upstreamSwitch: c.SLIPWAY_UPSTREAM_SWITCH,
      /** Whether the Caddy Slipway runs keeps serving when `slipway serve` is stopped by a signal (an upgrade of Slipway itself). */
      keepOnStop: ['on', 'true', '1'].includes(c.SLIPWAY_KEEP_PROXY),
      upstreamCheckMs: c.SLIPWAY_UPSTREAM_CHECK,
    },
    /** The general settings' defaults; `PATCH /api/settings` overrides each. */
    general: {
      rootDomain: c.SLIPWAY_ROOT_DOMAIN?.toLowerCase() ?? null,
      apiDomain: c.SLIPWAY_API_DOMAIN ?? null,
      publicIp: c.SLIPWAY_PUBLIC_IP ?? null,
      acmeEmail: c.SLIPWAY_ACME_EMAIL ?? null,
      acmeDirectoryUrl: c.SLIPWAY_ACME_DIRECTORY_URL,
      httpsEnabled: c.SLIPWAY_HTTPS === 'on',
      allowedDestinations: c.SLIPWAY_ALLOW_DESTINATIONS,
      denyPrivateDestinations: ['on', 'true', '1'].includes(c.SLIPWAY_DENY_PRIVATE_DESTINATIONS),
      defaultResources: {},
      sessionIdleMinutes: c.SLIPWAY_SESSION_IDLE_MINUTES,
      sessionMaxHours: c.SLIPWAY_SESSION_MAX_HOURS,
      requireTwoFactor: ['on', 'true', '1'].includes(c.SLIPWAY_REQUIRE_TWO_FACTOR),
      packNodeImage: c.SLIPWAY_PACK_NODE_IMAGE,
      packPythonImage: c.SLIPWAY_PACK_PYTHON_IMAGE,
      packGoImage: c.SLIPWAY_PACK_GO_IMAGE,
      packRunImage: c.SLIPWAY_PACK_RUN_IMAGE,
      packStaticImage: c.SLIPWAY_PACK_STATIC_IMAGE,
      dbImagePostgres: c.SLIPWAY_DB_IMAGE_POSTGRES,
      dbImageTimeseries: c.SLIPWAY_DB_IMAGE_TIMESERIES,
      dbImageMysql: c.SLIPWAY_DB_IMAGE_MYSQL,
      dbImageRedis: c.SLIPWAY_DB_IMAGE_REDIS,
      dbImageMongodb: c.SLIPWAY_DB_IMAGE_MONGODB,
      dbImageColumnar: c.SLIPWAY_DB_IMAGE_COLUMNAR,
    },
    integrations: {
      cloudflareApiUrl: c.SLIPWAY_CLOUDFLARE_API_URL.replace(/\/+$/, ''),
      digitaloceanApiUrl: c.SLIPWAY_DIGITALOCEAN_API_URL.replace(/\/+$/, ''),
      aiTimeoutMs: c.SLIPWAY_AI_TIMEOUT,
    },
    bodyLimit: c.SLIPWAY_BODY_LIMIT,
    /** Unknown keys one client address may present in a minute before it gets 429. */
    keyFailuresPerMinute: c.SLIPWAY_KEY_FAILURES_PER_MINUTE,
    /** How often each process manager repairs from state what the log alone cannot. */
    reconcileEveryMs: Math.max(100, c.SLIPWAY_RECONCILE_INTERVAL),
    /** How long a write waits for the read models before answering 503. */
    settleTimeoutMs: c.SLIPWAY_SETTLE_TIMEOUT,
    /** A reservation whose owner was never created (a creation cut short) is released once this old. */
    reservationGraceMs: c.SLIPWAY_RESERVATION_GRACE,
    /** An Idempotency-Key whose request has given no sign of life for this long may be taken over by a retry. */
    idempotencyAbandonAfterMs: Math.max(500, c.SLIPWAY_IDEMPOTENCY_ABANDON_AFTER),
    /** A container's use is no longer sampled once no overview has asked for it this long. */
    usageQuietMs: Math.max(100, c.SLIPWAY_USAGE_QUIET),
    /** The embedded store (PGlite) closes its thread after this long without requests or appends; 0: never. */
    storeSleepAfterMs: c.SLIPWAY_STORE_SLEEP_AFTER,
    docker: { socketPath: c.SLIPWAY_DOCKER_SOCKET, callTimeoutMs: c.SLIPWAY_DOCKER_TIMEOUT },
    cluster: {
      /** Where the engine Slipway drives (the manager) looks for registries' CAs: Slipway runs on the manager. */
      certsDir: c.SLIPWAY_DOCKER_CERTS_DIR,
      registryImage: c.SLIPWAY_CLUSTER_REGISTRY_IMAGE,
      registryPort: c.SLIPWAY_CLUSTER_REGISTRY_PORT,
      proxyImage: c.SLIPWAY_CLUSTER_PROXY_IMAGE,
      /** Where the router container is published on the manager, and where the host's Caddy dials it. */
      router: { host: c.SLIPWAY_CLUSTER_ROUTER.split(':')[0]!, port: Number(c.SLIPWAY_CLUSTER_ROUTER.split(':')[1]) },
      /** The static health probe for tasks (`npm run build` makes it when musl-gcc is there). */
      probePath: c.SLIPWAY_CLUSTER_PROBE ?? join(packageRoot(), 'dist', 'probe', 'slipway-probe'),
      /** The agent on every node (socat: mutual TLS in front of the node's engine) that database services need. */
      agent: { image: c.SLIPWAY_CLUSTER_AGENT_IMAGE, port: c.SLIPWAY_CLUSTER_AGENT_PORT, nodeSocket: c.SLIPWAY_CLUSTER_NODE_SOCKET },
    },
    /** Job runs and one-off commands that run at once across the installation; the rest wait queued. */
    jobRuns: { concurrency: c.SLIPWAY_JOB_RUN_CONCURRENCY },
    deploy: {
      concurrency: c.SLIPWAY_DEPLOY_CONCURRENCY,
      timeouts: {
        cloneMs: c.SLIPWAY_CLONE_TIMEOUT,
        buildMs: c.SLIPWAY_BUILD_TIMEOUT,
        pullMs: c.SLIPWAY_PULL_TIMEOUT,
        releaseCommandMs: c.SLIPWAY_RELEASE_COMMAND_TIMEOUT,
        startMs: c.SLIPWAY_START_TIMEOUT,
        workerSettleMs: c.SLIPWAY_WORKER_SETTLE,
        drainMs: c.SLIPWAY_DRAIN,
        stopGraceSeconds: Math.ceil(c.SLIPWAY_STOP_GRACE / 1000),
      },
    },
    databases: {
      /** Limits of SQL run through the API. */
      query: { timeoutMs: c.SLIPWAY_DB_QUERY_TIMEOUT, maxRows: c.SLIPWAY_DB_QUERY_MAX_ROWS },
      /** From container start until the engine answers a real query (first start includes initialising). */
      startMs: c.SLIPWAY_DB_START_TIMEOUT,
    },
    backups: {
      /** A dump, upload or restore that runs longer is stopped and fails. */
      timeoutMs: c.SLIPWAY_BACKUP_TIMEOUT,
      /** The UTC hour scheduled backups run at. */
      hourUtc: c.SLIPWAY_BACKUP_HOUR,
    },
    notifications: {
      /** The first retry of a failed notification waits this long; each next one twice as long (at most an hour), for 24 hours. */
      retryFirstMs: Math.max(50, c.SLIPWAY_NOTIFICATION_RETRY),
    },
    silent: c.SLIPWAY_LOG === 'silent',
  };
}
