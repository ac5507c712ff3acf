import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApiKey } from '../commands/api-key/handlers.js';
import type { CommandContext } from '../commands/shared/command-context.js';
import type { ServiceDeps } from '../commands/service/handlers.js';
import { StreamLocks } from '../commands/shared/stream-locks.js';
import { AggregateStateCache } from '../commands/shared/state-cache.js';
import { ALL_PROJECTORS } from '../projections/all.js';
import { countApiKeys } from '../projections/api-key-queries.js';
import { WriteParkedError } from '../projections/read-model-errors.js';
import { guardRebuildingReadModels } from '../projections/rebuilding-guard.js';
import { ProjectionRunner, ReadModelBehindError } from '../projections/runner.js';
import { takenHostPorts, type ServiceRow } from '../projections/service-queries.js';
import type { Config } from './config.js';
import { prepareDataDir, tighten } from './data-dir.js';
import { apiSocketPath } from './http/api-socket.js';
import { lockDataDir } from './db/data-dir-lock.js';
import { loadInstanceId } from './db/instance-id.js';
import { PushRepositories } from './git/push-repositories.js';
import { openPglite } from './db/pglite-client.js';
import { startPgliteMaintenance } from './db/pglite-maintenance.js';
import type { SqlClient } from './db/sql-client.js';
import type { EventStore } from './eventstore/port.js';
import { createPostgresEventStore } from './eventstore/postgres-event-store.js';
import { watchHorizon } from './eventstore/postgres-horizon.js';
import type { Logger } from './logger.js';
import { detectPublicIp, isPortFree } from './network.js';
import { databaseConnections } from './processes/database-connections.js';
import { Deployer } from './processes/deployment/deployer.js';
import { ProcessManagers } from './processes/process-managers.js';
import type { Reactor } from './processes/reactor.js';
import { createRetirement, RETIREMENT_ACTOR } from './processes/retirement.js';
import { ProxyReconciler, type ProxyTarget } from './processes/proxy-reconciler.js';
import { CaddyAdminClient } from './proxy/caddy-admin-client.js';
import { CaddySupervisor } from './proxy/caddy-supervisor.js';
import { CertificateStatusReader } from './proxy/certificate-status.js';
import { CertificateMonitor } from './processes/certificate-monitor.js';
import { HealthMonitor } from './processes/health/health-monitor.js';
import { ClusterNodeWatch } from './processes/cluster-node-watch.js';
import { createIptablesSwitch, type UpstreamSwitch } from './proxy/upstream-switch.js';
import type { ContainerRuntime } from './runtime/container-runtime.js';
import { lazyRuntime } from './runtime/lazy-runtime.js';
import { withDeferredRequires } from './runtime/deferred-requires.js';
import { BrowserPool } from './engines/browser-pool.js';
import { Certificates } from './engines/certificates.js';
import { clusterEngine, type ClusterEngine } from './cluster/cluster-engine.js';
import { clusterRouterKey, clusterTargets } from './cluster/cluster-target.js';
import { agentCredentials } from './cluster/agent-credentials.js';
import { registryAuthority } from './cluster/registry-authority.js';
import { moveRegistryToItsAuthority } from './cluster/registry-trust.js';
import { findCluster } from '../projections/cluster-queries.js';
import type { PemKeyPair } from './engines/tls-authority.js';
import { nodeEngines, type NodeEngines } from './cluster/node-engines.js';
import { NodeAccess } from './cluster/node-access.js';
import { networkOf } from './processes/deployment/toolkit/run-names.js';
import { overlayOf } from './processes/deployment/toolkit/run-names.js';
import { BackupRunner } from './processes/backup/backup-runner.js';
import type { BackupDeps } from './processes/backup/backup-target.js';
import { BackupScheduler } from './processes/backup/backup-scheduler.js';
import { ImportRunner } from './processes/import-runner.js';
import { remoteStorageSettings } from '../commands/settings/handlers.js';
import { createKeyring, type Keyring } from './secrets/keyring.js';
import { effectiveSettings, type EffectiveSettings } from './installation-settings.js';
import { installationImages } from './installation-images.js';
import { loadMasterKey } from './secrets/master-key.js';
import { createDestinationPolicy, type DestinationPolicy } from './outbound/destination-policy.js';
import { Notifier } from './processes/notification/notifier.js';
import { publicAddressOf, publicUrl } from './http/public-url.js';

export interface Slipway {
  config: Config;
  log: Logger;
  db: SqlClient;
  store: EventStore;
  keyring: Keyring;
  runner: ProjectionRunner;
  proxy: ProxyReconciler;
  /** The NAT switch deployments move, when this host can use one. */
  upstreams: UpstreamSwitch | null;
  runtime: ContainerRuntime;
  /** The engine as a Swarm manager, for cluster mode. */
  clusterEngine: ClusterEngine;
  /** The engines database services run on: this server's, or (cluster mode) the node each is pinned to. */
  nodes: NodeEngines;
  /** null in one-shot CLI commands. */
  deployer: Deployer | null;
  /** Feeds the process managers from their own checkpoints. */
  processManagers: ProcessManagers;
  serviceDeps: ServiceDeps;
  /** The general settings in force: the API's, else the environment's. */
  settings(): Promise<EffectiveSettings>;
  /** Where connections made on a key's behalf may go (imports, Git, registries, AI, DNS, remote storage). */
  outbound: DestinationPolicy;
  /** Connections to database services for the browser, SQL and row edits. */
  databases: BrowserPool<ServiceRow>;
  /** The installation's CA and the server certificates of Postgres-compatible services. */
  certificates: Certificates;
  /** The authority of the cluster registry's certificate alone (never the installation's): what every node trusts for it. */
  registryAuthority(): Promise<PemKeyPair>;
  /** Where the API listens, once it does (serve.ts): notification links name it when no apiDomain is set. */
  api: { listeningUrl: string | null };
  /** Delivers notifications; null in one-shot CLI commands. */
  notifier: Notifier | null;
  /** What backups, restores and downloads need: the runtime, the data directory, the remote storage. */
  backups: BackupDeps;
  /** The bare repositories `git push` writes to, one per Git-source service. */
  pushRepositories: PushRepositories;
  /**
   * A context for commands: `correlationId` is the HTTP request id (random for the CLI), `idempotencyKey`
   * makes a retry derive the same event and aggregate ids as its first attempt.
   */
  commandContext(actor: string, options?: { correlationId?: string; idempotencyKey?: string | null }): CommandContext;
  /** Waits until the read models include `position`, so a response reflects its own write; throws ReadModelBehindError if they do not in time. */
  settle(position: string | null): Promise<void>;
  stop(): Promise<void>;
}

const PGLITE_MAINTENANCE_EVERY_MS = 15_000;

export interface StartOptions {
  /** Off for one-shot CLI commands: no proxy is started or reloaded and no deployment runs. */
  proxy?: boolean;
  /**
   * Called if the installation lock is lost (its connection to the Postgres server broke), even during
   * start-up: another process may run the installation from then on. The process managers are stopped.
   */
  onLockLost?: (error: Error) => void;
}

// The pg and EventStoreDB clients are loaded only when configured: together they weigh ~40 MB of memory.
async function openDatabase(config: Config, onLockLost: (error: Error) => void): Promise<{ db: SqlClient; unlock: () => Promise<void> | void }> {
  if (config.databaseUrl) {
    const [{ openPostgres }, { lockInstallation }] = await Promise.all([import('./db/pg-client.js'), import('./db/installation-lock.js')]);
    const lock = await lockInstallation(config.databaseUrl, onLockLost);
    try {
      return { db: await openPostgres(config.databaseUrl), unlock: () => lock.release() };
    } catch (error) {
      await lock.release();
      throw error;
    }
  }
  const unlock = lockDataDir(config.dataDir);
  try {
    const pgdata = join(config.dataDir, 'pgdata');
    const db = await openPglite(pgdata, config.storeSleepAfterMs);
    // PGlite's initdb writes its files 0666 whatever the umask; what it creates later honours it.
    tighten(pgdata);
    return { db, unlock };
  } catch (error) {
    unlock();
    throw error;
  }
}

/**
 * Where Caddy reaches the API for `apiDomain`: the Caddy Slipway runs through the API's own socket (so the
 * client address it forwards can be trusted); a Caddy of the operator's on this host through the TCP port.
 */
function apiDialOf(config: Config, supervised: boolean): string | null {
  if (supervised) return `unix/${apiSocketPath(config.dataDir)}`;
  if (config.port === 0) return null;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

function proxyTarget(config: Config, log: Logger, onReady: () => Promise<void>) {
  if (config.proxy.mode === 'off') {
    return { target: { client: null, unavailable: () => 'proxy disabled (SLIPWAY_PROXY=off)' }, supervisor: null };
  }
  if (config.proxy.externalAdminUrl) {
    const client = new CaddyAdminClient(config.proxy.externalAdminUrl);
    return { target: { client, unavailable: () => null }, supervisor: null };
  }
  const supervisor = new CaddySupervisor({
    binary: config.proxy.binary,
    adminListen: config.proxy.adminListen,
    workDir: join(config.dataDir, 'caddy'),
    log,
    onReady,
  });
  const target: ProxyTarget = { client: supervisor.client, unavailable: () => supervisor.unavailable };
  return { target, supervisor };
}

export async function startSlipway(config: Config, log: Logger, options: StartOptions = {}): Promise<Slipway> {
  prepareDataDir(config.dataDir, log);
  let lockLost: Error | null = null;
  let stopActing: () => void = () => undefined;
  const { db: database, unlock } = await openDatabase(config, (error) => {
    lockLost = error;
    log.error('lost the installation lock: this process no longer runs the installation and stops its process managers', { error: error.message });
    stopActing();
    options.onLockLost?.(error);
  });
  const store = config.eventStoreUrl
    ? await (await import('./eventstore/eventstoredb-event-store.js')).createEventStoreDbEventStore(config.eventStoreUrl)
    : await createPostgresEventStore(database);
  const keyring = await createKeyring(database, loadMasterKey(config.dataDir, config.secretKey).key);
  const runner = new ProjectionRunner(
    database,
    store,
    ALL_PROJECTORS,
    (error) => log.error('projection batch failed', { error: String(error) }),
    (parked) => log.error('a read model parked an event it cannot apply', { projector: parked.projector, event: parked.event.id, type: parked.event.type, error: parked.error }),
  );
  await runner.start();
  // Everything but the runner reads through this: a read model being rebuilt after an upgrade answers 503.
  const db = guardRebuildingReadModels(database, runner.unreadable);

  const defaults = { ...config.general, publicIp: config.general.publicIp ?? detectPublicIp() };
  const settings = () => effectiveSettings(db, defaults);
  const outbound = createDestinationPolicy({
    async rules() {
      const { allowedDestinations, denyPrivateDestinations } = await settings();
      return { allowed: allowedDestinations, denyPrivate: denyPrivateDestinations };
    },
  });
  const states = new AggregateStateCache();
  const locks = new StreamLocks();
  const commandContext = (actor: string, options: { correlationId?: string; idempotencyKey?: string | null } = {}): CommandContext => ({
    store,
    keyring,
    actor,
    correlationId: options.correlationId ?? randomUUID(),
    causationId: null,
    idempotencyKey: options.idempotencyKey ?? null,
    counters: new Map<string, number>(),
    states,
    locks,
  });
  const useProxy = options.proxy !== false;
  let reconciler: ProxyReconciler | null = null;
  const { target, supervisor } = useProxy
    ? proxyTarget(config, log, async () => {
        const result = await reconciler!.reloadNow();
        if (!result.ok) log.warn('proxy reload failed', { detail: result.detail });
      })
    : { target: { client: null, unavailable: () => 'proxy not started by this command' }, supervisor: null };
  const instance = await loadInstanceId(db);
  // Only a Caddy on this host (the one Slipway runs) sees this host's NAT rules.
  const upstreams = supervisor && config.proxy.upstreamSwitch === 'iptables' ? await createIptablesSwitch(instance, config.dataDir) : null;
  if (supervisor && !upstreams) log.info('deployments switch routes by reloading Caddy (iptables is not usable here)');
  reconciler = new ProxyReconciler(
    db,
    runner,
    target,
    async () => {
      const { httpsEnabled, acmeDirectoryUrl, acmeEmail, apiDomain } = await settings();
      const { httpPort, httpsPort, acmeCaRoots } = config.proxy;
      const apiDial = apiDialOf(config, Boolean(supervisor));
      return {
        adminListen: config.proxy.externalAdminUrl ? new URL(config.proxy.externalAdminUrl).host : config.proxy.adminListen,
        httpListen: [`:${httpPort}`],
        https: httpsEnabled ? { httpPort, httpsPort, acmeDirectoryUrl, acmeEmail, trustedRootsPemFiles: acmeCaRoots } : null,
        api: apiDomain && apiDial ? { hostname: apiDomain, dial: apiDial } : null,
      };
    },
    upstreams,
    { host: config.cluster.router.host, key: clusterRouterKey(commandContext('system:proxy')) },
  );

  const stopWatchingUpstreams = reconciler.watchUpstreams(config.proxy.upstreamCheckMs);
  // Only a Postgres server has other sessions whose open transactions hold back the log's readers.
  const stopWatchingHorizon = db.kind === 'postgres' && store.kind === 'postgres' ? watchHorizon(db, log) : () => undefined;
  // A Postgres server has autovacuum; PGlite has none.
  const stopMaintenance =
    db.kind === 'pglite' ? startPgliteMaintenance(db, PGLITE_MAINTENANCE_EVERY_MS, (error) => log.warn('PGlite vacuum/analyze failed', { error: String(error) })) : async () => undefined;
  const runtime = lazyRuntime(async () =>
    (await withDeferredRequires(() => import('./runtime/docker-runtime.js'))).createDockerRuntime({ ...config.docker, instance }),
  );
  const engine = clusterEngine(config.docker.socketPath);
  const certificates = new Certificates(commandContext('system:certificates'), async () => (await settings()).publicIp);
  let registryCa: Promise<PemKeyPair> | null = null;
  const registryCaOf = () => (registryCa ??= registryAuthority(config.dataDir).catch((error: unknown) => {
    registryCa = null;
    throw error;
  }));
  const clusterAsIs = clusterTargets(db, commandContext('system:deployer'), engine, config.cluster, async () => (await registryCaOf()).certPem);
  // Pushes and pulls wait for the registry's move to its own authority at start (moveRegistry); the move itself,
  // and the agents it reaches the nodes through, do not.
  let registryMoved: Promise<void> = Promise.resolve();
  const cluster = async () => {
    await registryMoved;
    return clusterAsIs();
  };
  let credentials: ReturnType<typeof agentCredentials> | null = null;
  const nodeAccess = new NodeAccess({
    async manager() {
      const target = await clusterAsIs();
      if (!target) throw new Error('this installation is not a cluster');
      return target;
    },
    credentials: () => (credentials ??= agentCredentials(config.dataDir)),
    settings: config.cluster.agent,
    readyTimeoutMs: 60_000,
  });
  const nodes = nodeEngines(runtime, nodeAccess, async (docker) =>
    (await withDeferredRequires(() => import('./runtime/docker-runtime.js'))).createDockerRuntime({ ...config.docker, instance, docker }),
  );
  const databases = new BrowserPool<ServiceRow>();
  const pushRepositories = new PushRepositories(config.dataDir, { pushBytes: config.gitPushLimitBytes, repositoryBytes: config.gitRepoLimitBytes });
  const deployer = useProxy
    ? new Deployer(
        {
          cmd: commandContext('system:deployer'),
          db,
          keyring,
          runtime,
          proxy: reconciler,
          outbound,
          databaseTls: (row) => certificates.serverTls(row),
          defaultResources: async () => (await settings()).defaultResources,
          images: async () => installationImages(await settings()),
          pushedRepositories: pushRepositories,
          cluster,
          nodes,
          settings: {
            workDir: join(config.dataDir, 'builds'),
            timeouts: config.deploy.timeouts,
            proxyEnabled: config.proxy.mode !== 'off',
            databases: { startMs: config.databases.startMs, copyMs: config.backups.timeoutMs },
          },
        },
        { concurrency: config.deploy.concurrency, watchIntervalMs: 1000 },
        log,
      )
    : null;

  // Retirement of deleted projects and services (release reservations, shred keys), in the server only.
  const retirement = useProxy
    ? createRetirement({ cmd: commandContext(RETIREMENT_ACTOR), db, pushRepositories, settle: (position) => slipway.settle(position), graceMs: config.reservationGraceMs, log })
    : null;
  const backups: BackupDeps = {
    cmd: commandContext('system:backups'),
    db,
    keyring,
    runtime,
    nodes,
    dataDir: config.dataDir,
    timeoutMs: config.backups.timeoutMs,
    async remoteStorage() {
      const connected = await remoteStorageSettings(backups.cmd);
      return connected ? (await import('./integrations/remote-storage.js')).openRemoteStorage(connected, outbound) : null;
    },
  };
  const backupRunner = useProxy ? new BackupRunner(backups, log) : null;
  const importRunner = useProxy ? new ImportRunner(
        {
          ...backups,
          cmd: commandContext('system:imports'),
          images: async () => installationImages(await settings()).databases,
          outbound,
          projectNetwork: async (projectId) => ((await cluster()) ? overlayOf(projectId) : networkOf(projectId)),
        },
        log,
      ) : null;
  const backupScheduler = useProxy ? new BackupScheduler(backups, { hourUtc: config.backups.hourUtc, now: () => new Date() }, log) : null;
  // Certificate state comes from the storage and log of the Caddy Slipway runs; an external Caddy keeps its own.
  const certificateMonitor = supervisor
    ? new CertificateMonitor(
        { cmd: commandContext('system:certificates'), db, settings, reader: (url) => new CertificateStatusReader(join(config.dataDir, 'caddy'), url) },
        log,
      )
    : null;
  // Probes released services from the server only, like the deployer that releases them.
  const healthMonitor = useProxy ? new HealthMonitor({ cmd: () => commandContext('system:health'), db, runtime, nodes }, { tickMs: 1_000, concurrency: 8 }, log) : null;
  const api: Slipway['api'] = { listeningUrl: null };
  const notifier = useProxy
    ? new Notifier(
        {
          cmd: commandContext('system:notifier'),
          db,
          outbound,
          settle: (position) => slipway.settle(position),
          retryFirstMs: config.notifications.retryFirstMs,
          async apiBase() {
            const current = await settings();
            if (current.apiDomain) return publicUrl(current.apiDomain, publicAddressOf(config, current));
            return api.listeningUrl ?? `http://${config.host}:${config.port}`;
          },
        },
        log,
      )
    : null;
  const reactors: Reactor[] = [
    reconciler,
    ...(deployer ? [deployer] : []),
    ...(retirement ? [retirement] : []),
    databaseConnections(databases),
    ...(backupRunner && backupScheduler && importRunner ? [backupRunner, backupScheduler, importRunner] : []),
    ...(certificateMonitor ? [certificateMonitor] : []),
    ...(healthMonitor ? [healthMonitor] : []),
    ...(useProxy ? [new ClusterNodeWatch({ cmd: () => commandContext('system:cluster'), db, engine }, log)] : []),
    ...(notifier ? [notifier] : []),
  ];
  const processManagers = new ProcessManagers(db, store, runner, reactors, { reconcileEveryMs: config.reconcileEveryMs }, log);

  const slipway: Slipway = {
    config,
    log,
    db,
    store,
    keyring,
    runner,
    proxy: reconciler,
    upstreams,
    runtime,
    deployer,
    processManagers,
    settings,
    outbound,
    databases,
    certificates,
    registryAuthority: registryCaOf,
    clusterEngine: engine,
    nodes,
    backups,
    api,
    notifier,
    pushRepositories,
    serviceDeps: {
      hostPortRange: config.hostPortRange,
      takenHostPorts: () => takenHostPorts(db),
      isHostPortFree: isPortFree,
      rootDomain: async () => (await settings()).rootDomain,
    },
    commandContext,
    async settle(position) {
      if (!(await runner.waitFor(position, config.settleTimeoutMs))) throw new ReadModelBehindError(config.settleTimeoutMs);
      // A parked event is not an applied one: the answer would not show the write.
      const parked = await runner.parkedOfWrite(position);
      if (parked) throw new WriteParkedError(parked.projector, parked.eventId, parked.error);
    },
    async stop() {
      stopWatchingUpstreams();
      stopWatchingHorizon();
      await stopMaintenance();
      await processManagers.stop();
      await notifier?.stop();
      await healthMonitor?.stop();
      await deployer?.stop();
      await backupRunner?.stop();
      await importRunner?.stop();
      await databases.closeAll();
      await nodeAccess.close();
      await supervisor?.stop();
      await reconciler!.detachUpstreams();
      await runner.stop();
      await reconciler!.idle();
      await store.close();
      await db.close();
      await unlock();
    },
  };
  /** Before pushes and pulls resume: a registry still on the installation's CA gets its own (registry-trust.ts). */
  async function moveRegistry(): Promise<void> {
    try {
      const row = await findCluster(db);
      const target = row ? await clusterAsIs() : null;
      if (!row || !target) return;
      const result = await moveRegistryToItsAuthority({
        docker: target.docker,
        access: target.registry,
        authority: await registryCaOf(),
        registry: { image: config.cluster.registryImage, advertiseAddress: row.advertise_address, port: config.cluster.registryPort },
        certsDir: config.cluster.certsDir,
        nodeDocker: (nodeId) => nodeAccess.docker(nodeId),
      });
      if (result.moved) log.info('the cluster registry’s certificate is now from its own authority; every node reached trusts only that one', { registry: target.registry.address });
      for (const { node, error } of result.unreached) {
        log.warn(`node ${node} still trusts the registry’s old CA: write registryCaPem of POST /api/cluster/nodes to /etc/docker/certs.d/${target.registry.address}/ca.crt there`, { error });
      }
    } catch (error) {
      // The cluster may be unreachable now; the single server's services still start.
      log.warn('the cluster registry could not be checked at start', { error: String(error) });
    }
  }

  // Another process may own the installation from then on: nothing here may act on it any more.
  stopActing = () => {
    void processManagers.stop().catch(() => undefined);
    void notifier?.stop();
    void healthMonitor?.stop();
  };

  try {
    await runner.caughtUp();
    // In the background: reaching every node's agent can take a minute, and the API need not wait for it.
    if (useProxy) registryMoved = moveRegistry();
    if (supervisor) await supervisor.start();
    else if (useProxy && config.proxy.externalAdminUrl) await reconciler.reloadNow();
    await deployer?.start();
    if (lockLost) throw lockLost;
    await processManagers.start();
    healthMonitor?.start();
  } catch (error) {
    await slipway.stop();
    throw error;
  }
  return slipway;
}

/** On a first start with no key at all, an all-project write key is written to a 0600 file, never to the log. */
export async function ensureBootstrapKey(slipway: Slipway): Promise<string | null> {
  if ((await countApiKeys(slipway.db)) > 0) return null;
  const { secret, position } = await createApiKey(slipway.commandContext('system'), {
    name: 'bootstrap',
    access: 'write',
    projectIds: null,
  });
  await slipway.settle(position);
  const path = join(slipway.config.dataDir, 'bootstrap-key');
  writeFileSync(path, secret + '\n', { mode: 0o600 });
  return path;
}
