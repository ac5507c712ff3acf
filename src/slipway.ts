import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApiKey } from '../commands/api-key/handlers.js';
import type { CommandContext } from '../commands/shared/command-context.js';
import type { ServiceDeps } from '../commands/service/handlers.js';
import { countApiKeys } from '../projections/api-key-queries.js';
import type { ProjectionRunner } from '../projections/runner.js';
import { takenHostPorts, type ServiceRow } from '../projections/service-queries.js';
import type { ManagerHost } from './cluster/manager-host.js';
import type { NodePrivilegeCheck } from './cluster/node-privilege-check.js';
import type { NodeHosts } from './cluster/node-hosts.js';
import { backupDeps } from './composition/backups.js';
import { commandContexts } from './composition/command-contexts.js';
import { startDockerHosts } from './composition/docker-hosts.js';
import { startProxy } from './composition/proxy.js';
import { createReactors } from './composition/reactors.js';
import { settingsInForce } from './composition/settings.js';
import { startStorage } from './composition/storage.js';
import { stopInSteps } from './composition/stop-in-steps.js';
import { startUpkeep } from './composition/upkeep.js';
import { startUsageSampling, type UsageSampling } from './composition/usage.js';
import type { Config } from './config.js';
import { prepareDataDir } from './data-dir.js';
import { loadInstanceId } from './db/instance-id.js';
import type { SqlClient } from './db/sql-client.js';
import { BrowserPool } from './engines/browser-pool.js';
import { Certificates } from './engines/certificates.js';
import type { PemKeyPair } from './engines/tls-authority.js';
import type { EventStore } from './eventstore/port.js';
import { PushRepositories } from './git/push-repositories.js';
import type { EffectiveSettings } from './installation-settings.js';
import type { Logger } from './logger.js';
import { isPortFree } from './network.js';
import type { DestinationPolicy } from './outbound/destination-policy.js';
import type { BackupDeps } from './processes/backup/backup-target.js';
import type { Deployer } from './processes/deployment/deployer.js';
import type { Notifier } from './processes/notification/notifier.js';
import type { JobScheduler } from './processes/job/job-scheduler.js';
import { ProcessManagers } from './processes/process-managers.js';
import type { ProxyReconciler } from './processes/proxy-reconciler.js';
import type { UpstreamSwitch } from './proxy/upstream-switch.js';
import type { ContainerRuntime } from './runtime/container-runtime.js';
import type { Keyring } from './secrets/keyring.js';

export interface StopOptions {
  stopProxy?: boolean;
}

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
  /** This server's Docker host as a Swarm manager, for cluster mode. */
  managerHost: ManagerHost;
  /** The Docker hosts database services run on: this server's, or (cluster mode) the node each is pinned to. */
  nodes: NodeHosts;
  /** Cluster mode: whether each node's daemon sets no-new-privileges by default, as last asked. */
  nodePrivileges: NodePrivilegeCheck;
  /** The use of the services overviews look at, sampled in the background. */
  usage: UsageSampling;
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
  /** Requests the runs of scheduled jobs at their due times; null in one-shot CLI commands. */
  jobScheduler: JobScheduler | null;
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
  /** Stops everything it runs; the Caddy it keeps only with `stopProxy` (the sites go down with it). */
  stop(options?: StopOptions): Promise<void>;
}

export interface StartOptions {
  /** Off for one-shot CLI commands: no proxy is started or reloaded and no deployment runs. */
  proxy?: boolean;
  /**
   * Called if the installation lock is lost (its connection to the Postgres server broke), even during
   * start-up: another process may run the installation from then on. The process managers are stopped.
   */
  onLockLost?: (error: Error) => void;
}

/**
 * The composition root: each module below is started by its own function with the few dependencies it uses
 * (src/composition/), in the order they depend on each other; `stop` undoes them in reverse.
 */
export async function startSlipway(config: Config, log: Logger, options: StartOptions = {}): Promise<Slipway> {
  prepareDataDir(config.dataDir, log);
  const server = options.proxy !== false;
  let lockLost: Error | null = null;
  let stopActing: () => void = () => undefined;
  const storage = await startStorage({
    config,
    log,
    onLockLost(error) {
      lockLost = error;
      log.error('lost the installation lock: this process no longer runs the installation and stops its process managers', { error: error.message });
      stopActing();
      options.onLockLost?.(error);
    },
  });
  const { db, store, keyring, runner, settle } = storage;
  const { settings, outbound } = settingsInForce(config, db);
  const commandContext = commandContexts(store, keyring);
  const instance = await loadInstanceId(db);
  const proxy = await startProxy({ config, log, db, runner, settings, commandContext, instance, useProxy: server });
  const stopUpkeep = startUpkeep({ db, store, log });
  const hosts = startDockerHosts({ config, log, db, commandContext, instance });
  const usage = startUsageSampling({ quietMs: config.usageQuietMs, nodes: hosts.nodes, managerHost: hosts.managerHost });
  const certificates = new Certificates(commandContext('system:certificates'), async () => (await settings()).publicIp);
  const databases = new BrowserPool<ServiceRow>();
  const pushRepositories = new PushRepositories(config.dataDir, { pushBytes: config.gitPushLimitBytes, repositoryBytes: config.gitRepoLimitBytes });
  const backups = backupDeps({ dataDir: config.dataDir, timeoutMs: config.backups.timeoutMs, db, keyring, hosts, outbound, commandContext });
  const api: Slipway['api'] = { listeningUrl: null };
  const reactors = createReactors({ config, log, db, keyring, settings, settle, outbound, commandContext, proxy, hosts, certificates, databases, pushRepositories, backups, api, server });
  const processManagers = new ProcessManagers(db, store, runner, reactors.all, { reconcileEveryMs: config.reconcileEveryMs }, log);

  const slipway: Slipway = {
    config,
    log,
    db,
    store,
    keyring,
    runner,
    proxy: proxy.reconciler,
    upstreams: proxy.upstreams,
    runtime: hosts.runtime,
    deployer: reactors.deployer,
    processManagers,
    settings,
    outbound,
    databases,
    certificates,
    registryAuthority: hosts.registryAuthority,
    managerHost: hosts.managerHost,
    nodes: hosts.nodes,
    nodePrivileges: hosts.nodePrivileges,
    usage,
    backups,
    api,
    notifier: reactors.notifier,
    jobScheduler: reactors.jobScheduler,
    pushRepositories,
    serviceDeps: {
      hostPortRange: config.hostPortRange,
      takenHostPorts: () => takenHostPorts(db),
      isHostPortFree: isPortFree,
      rootDomain: async () => (await settings()).rootDomain,
    },
    commandContext,
    settle,
    async stop({ stopProxy = false }: StopOptions = {}) {
      proxy.stopWatching();
      await stopInSteps(log, [
        ['upkeep', stopUpkeep],
        ['process managers', () => processManagers.stop()],
        ['reactors', () => reactors.stop()],
        ['database connections', () => databases.closeAll()],
        ['usage sampling', () => usage.stop()],
        ['Docker hosts', () => hosts.close()],
        ['the proxy', async () => (stopProxy ? proxy.supervisor?.stopWithCaddy() : proxy.supervisor?.stop())],
        ['upstreams', () => proxy.reconciler.detachUpstreams()],
        ['projections', () => runner.stop()],
        ['the proxy reconciler', () => proxy.reconciler.idle()],
        ['the event store', () => store.close()],
        ['the read-model database', () => db.close()],
        ['the data directory lock', () => storage.unlock()],
      ]);
    },
  };

  // Another process may own the installation from then on: nothing here may act on it any more.
  stopActing = () => {
    void processManagers.stop().catch(() => undefined);
    reactors.stopActing();
  };

  try {
    await runner.caughtUp();
    // In the background: reaching every node's agent can take a minute, and the API need not wait for it.
    if (server) hosts.moveRegistry();
    await proxy.start();
    await reactors.start();
    if (lockLost) throw lockLost;
    await processManagers.start();
    reactors.startMonitoring();
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
    ownerUserId: null,
    access: 'write',
    projectIds: null,
  });
  await slipway.settle(position);
  const path = join(slipway.config.dataDir, 'bootstrap-key');
  writeFileSync(path, secret + '\n', { mode: 0o600 });
  return path;
}
