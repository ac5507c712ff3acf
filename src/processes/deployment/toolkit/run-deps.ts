import type { ServiceRow } from '../../../../projections/service-queries.js';
import type { PublicAddress } from '../../../proxy/public-url.js';
import type { CommandContext } from '../../../../commands/shared/command-context.js';
import type { ClusterTarget } from '../../../cluster/cluster-target.js';
import type { NodeHosts } from '../../../cluster/node-hosts.js';
import type { SqlExecutor } from '../../../db/sql-client.js';
import type { ServerTls } from '../../../engines/engine-plans.js';
import type { InstallationImages } from '../../../installation-images.js';
import type { DestinationPolicy } from '../../../outbound/destination-policy.js';
import type { ProxyResult } from '../../../proxy/caddy-config.js';
import type { ContainerRuntime } from '../../../runtime/container-runtime.js';
import type { Keyring } from '../../../secrets/keyring.js';
import type { DefaultResources } from './service-resources.js';

export interface DeployTimeouts {
  cloneMs: number;
  buildMs: number;
  pullMs: number;
  /** How long a service's release command may run before the deployment fails. */
  releaseCommandMs: number;
  /** From container start until it answers HTTP (web) or has stayed up (worker). */
  startMs: number;
  workerSettleMs: number;
  /** Time the proxy gets to finish requests already sent to the previous container. */
  drainMs: number;
  stopGraceSeconds: number;
}

export interface DeploySettings {
  workDir: string;
  timeouts: DeployTimeouts;
  /** False when Slipway runs without a proxy: releases are recorded but nothing routes them. */
  proxyEnabled: boolean;
  /** How long a database may take to answer; how long a move's dump or restore may take. */
  databases: { startMs: number; copyMs: number };
}

export type DatabaseTls = (row: ServiceRow) => Promise<ServerTls | null>;

/** What every run of a deployment is handed. */
export interface RunDeps {
  cmd: CommandContext;
  db: SqlExecutor;
  keyring: Keyring;
  runtime: ContainerRuntime;
  proxy: { sync(position: string | null): Promise<ProxyResult> };
  settings: DeploySettings;
  /** The images in force now: the installation's settings change them without a restart. */
  images: () => Promise<InstallationImages>;
  /** Where a deployment may fetch from for its service: the repository's server, an image's registry. */
  outbound: DestinationPolicy;
  /** The server certificate of a Postgres-compatible service; null runs it without TLS. */
  databaseTls?: DatabaseTls;
  /** The installation's `defaultResources`; none when absent. */
  defaultResources?: DefaultResources;
  /** How the proxy serves domains now (HTTPS or not, on which port): the address a deployment names at the end. */
  publicAddress?: () => Promise<PublicAddress>;
  /** Where `git push` stores each service's commits: the source of a deployment whose `source` is `push`. */
  pushedRepositories?: { pathOf(serviceId: string): string };
  /** The cluster, once the installation is one: web and worker releases then run as Swarm services. */
  cluster?: () => Promise<ClusterTarget | null>;
  /** Cluster mode: the engines of the nodes database services are pinned to. */
  nodes?: NodeHosts;
}
