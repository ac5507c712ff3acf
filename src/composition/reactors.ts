import { join } from 'node:path';
import type { ServiceRow } from '../../projections/service-queries.js';
import type { Config } from '../config.js';
import type { SqlClient } from '../db/sql-client.js';
import type { BrowserPool } from '../engines/browser-pool.js';
import type { Certificates } from '../engines/certificates.js';
import type { PushRepositories } from '../git/push-repositories.js';
import { publicAddressOf, publicUrl } from '../proxy/public-url.js';
import { installationImages } from '../installation-images.js';
import type { EffectiveSettings } from '../installation-settings.js';
import type { Logger } from '../logger.js';
import type { DestinationPolicy } from '../outbound/destination-policy.js';
import { BackupRunner } from '../processes/backup/backup-runner.js';
import type { BackupDeps } from '../processes/backup/backup-target.js';
import { BackupScheduler } from '../processes/backup/backup-scheduler.js';
import { CertificateMonitor } from '../processes/certificate-monitor.js';
import { ClusterNodeWatch } from '../processes/cluster-node-watch.js';
import { databaseConnections } from '../processes/database-connections.js';
import { Deployer } from '../processes/deployment/deployer.js';
import { HealthMonitor } from '../processes/health/health-monitor.js';
import { ImportRunner } from '../processes/import-runner.js';
import { JobScheduler } from '../processes/job/job-scheduler.js';
import { JOB_RUNNER_ACTOR } from '../processes/job-run/job-run-execution.js';
import { JobRunner } from '../processes/job-run/job-runner.js';
import { Notifier } from '../processes/notification/notifier.js';
import type { Reactor } from '../processes/reactor.js';
import { createRetirement, RETIREMENT_ACTOR } from '../processes/retirement.js';
import { networkOf, overlayOf } from '../processes/deployment/toolkit/run-names.js';
import type { Keyring } from '../secrets/keyring.js';
import { CertificateStatusReader } from '../proxy/certificate-status.js';
import type { CommandContexts } from './command-contexts.js';
import type { DockerHosts } from './docker-hosts.js';
import type { Proxy } from './proxy.js';

export interface ReactorsDeps {
  config: Config;
  log: Logger;
  db: SqlClient;
  keyring: Keyring;
  settings(): Promise<EffectiveSettings>;
  settle(position: string | null): Promise<void>;
  outbound: DestinationPolicy;
  commandContext: CommandContexts;
  proxy: Pick<Proxy, 'reconciler' | 'supervisor'>;
  hosts: Pick<DockerHosts, 'runtime' | 'nodes' | 'nodePrivileges' | 'cluster' | 'managerHost'>;
  certificates: Certificates;
  databases: BrowserPool<ServiceRow>;
  pushRepositories: PushRepositories;
  backups: BackupDeps;
  /** Where the API listens, once it does: notification links name it when no apiDomain is set. */
  api: { listeningUrl: string | null };
  /** Off for one-shot CLI commands: only the proxy's reconciler and the database connections follow the log. */
  server: boolean;
}

export interface Reactors {
  /** What the process managers feed, in this order. */
  all: Reactor[];
  deployer: Deployer | null;
  notifier: Notifier | null;
  jobScheduler: JobScheduler | null;
  /** Before the process managers start: the deployer reconciles the runs it left. */
  start(): Promise<void>;
  /** Once the process managers run. */
  startMonitoring(): void;
  /** Stops what acts on its own timers (the installation may belong to another process now). */
  stopActing(): void;
  stop(): Promise<void>;
}

export function createReactors(deps: ReactorsDeps): Reactors {
  const { config, log, db, keyring, settings, outbound, commandContext, proxy, hosts, backups, server } = deps;
  const { runtime, nodes, cluster } = hosts;
  const deployer = server
    ? new Deployer(
        {
          cmd: commandContext('system:deployer'),
          db,
          keyring,
          runtime,
          proxy: proxy.reconciler,
          outbound,
          databaseTls: (row) => deps.certificates.serverTls(row),
          defaultResources: async () => (await settings()).defaultResources,
          images: async () => installationImages(await settings()),
          pushedRepositories: deps.pushRepositories,
          publicAddress: async () => publicAddressOf(config, await settings()),
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
  const retirement = server
    ? createRetirement({ cmd: commandContext(RETIREMENT_ACTOR), db, pushRepositories: deps.pushRepositories, settle: deps.settle, graceMs: config.reservationGraceMs, log })
    : null;
  const backupRunner = server ? new BackupRunner(backups, log) : null;
  const projectNetwork = async (projectId: string) => ((await cluster()) ? overlayOf(projectId) : networkOf(projectId));
  const importRunner = server
    ? new ImportRunner(
        {
          ...backups,
          cmd: commandContext('system:imports'),
          images: async () => installationImages(await settings()).databases,
          outbound,
          projectNetwork,
        },
        log,
      )
    : null;
  const jobScheduler = server ? new JobScheduler({ cmd: commandContext('system:job-scheduler'), db }, { now: Date.now }, log) : null;
  const jobRunner = server
    ? new JobRunner(
        {
          cmd: commandContext(JOB_RUNNER_ACTOR),
          db,
          keyring,
          runtime,
          defaultResources: async () => (await settings()).defaultResources,
          projectNetwork,
          graceSeconds: config.deploy.timeouts.stopGraceSeconds,
        },
        config.jobRuns,
        log,
      )
    : null;
  const backupScheduler = server ? new BackupScheduler(backups, { hourUtc: config.backups.hourUtc, now: () => new Date() }, log) : null;
  // Certificate state comes from the storage and log of the Caddy Slipway runs; an external Caddy keeps its own.
  const certificateMonitor = proxy.supervisor
    ? new CertificateMonitor(
        { cmd: commandContext('system:certificates'), db, settings, reader: (url) => new CertificateStatusReader(join(config.dataDir, 'caddy'), url) },
        log,
      )
    : null;
  // Probes released services from the server only, like the deployer that releases them.
  const healthMonitor = server ? new HealthMonitor({ cmd: () => commandContext('system:health'), db, runtime, nodes }, { tickMs: 1_000, concurrency: 8 }, log) : null;
  const notifier = server
    ? new Notifier(
        {
          cmd: commandContext('system:notifier'),
          db,
          outbound,
          settle: deps.settle,
          retryFirstMs: config.notifications.retryFirstMs,
          async apiBase() {
            const current = await settings();
            if (current.apiDomain) return publicUrl(current.apiDomain, publicAddressOf(config, current));
            return deps.api.listeningUrl ?? `http://${config.host}:${config.port}`;
          },
        },
        log,
      )
    : null;
  const all: Reactor[] = [
    proxy.reconciler,
    ...(deployer ? [deployer] : []),
    ...(retirement ? [retirement] : []),
    databaseConnections(deps.databases),
    ...(backupRunner && backupScheduler && importRunner ? [backupRunner, backupScheduler, importRunner] : []),
    ...(jobRunner ? [jobRunner] : []),
    ...(certificateMonitor ? [certificateMonitor] : []),
    ...(healthMonitor ? [healthMonitor] : []),
    ...(server ? [new ClusterNodeWatch({ cmd: () => commandContext('system:cluster'), db, engine: hosts.managerHost, privileges: hosts.nodePrivileges }, log)] : []),
    ...(jobScheduler ? [jobScheduler] : []),
    ...(notifier ? [notifier] : []),
  ];
  return {
    all,
    deployer,
    notifier,
    jobScheduler,
    start: async () => deployer?.start(),
    startMonitoring() {
      healthMonitor?.start();
      jobScheduler?.start();
    },
    stopActing() {
      void jobScheduler?.stop();
      void notifier?.stop();
      void healthMonitor?.stop();
    },
    async stop() {
      await jobScheduler?.stop();
      await notifier?.stop();
      await healthMonitor?.stop();
      await deployer?.stop();
      await backupRunner?.stop();
      await importRunner?.stop();
      await jobRunner?.stop();
    },
  };
}
