import { existsSync, readFileSync } from 'node:fs';
import type Docker from 'dockerode';
import { registryPassword } from '../../commands/cluster/handlers.js';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { findCluster } from '../../projections/cluster-queries.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { ManagerHost } from './manager-host.js';
import { routerKeyOf } from './cluster-router.js';
import type { RegistryAccess } from './registry.js';
import { RegistryLock } from './registry-lock.js';

/** The registry's one user; its password is the installation's own (sealed in ClusterInitialized). */
export const REGISTRY_USER = 'slipway';

/** The cluster as a deployment drives it: the manager's engine, its registry and router, the task probe. */
export interface ClusterTarget {
  docker: Docker;
  registry: RegistryAccess;
  /** The authority the registry's certificate is from: Slipway calls its API to delete what no release needs. */
  registryCa: string;
  /** Pushes share the registry, its garbage collection has it alone. */
  registryLock: RegistryLock;
  router: { image: string; bind: { host: string; port: number }; key: string };
  /** The static health probe mounted into every task; null when it was not built (no musl-gcc at build time). */
  probe: Buffer | null;
}

export interface ClusterSettings {
  proxyImage: string;
  router: { host: string; port: number };
  probePath: string;
}

/** What deployments run on: null while the installation is a single server. */
export function clusterTargets(
  db: SqlExecutor,
  cmd: CommandContext,
  engine: ManagerHost,
  settings: ClusterSettings,
  authorityPem: () => Promise<string>,
): () => Promise<ClusterTarget | null> {
  let probe: Buffer | null = null;
  const registryLock = new RegistryLock();
  return async () => {
    const row = await findCluster(db);
    if (!row) return null;
    const password = await registryPassword(cmd);
    if (password === null) throw new Error('the password of the cluster’s registry cannot be opened (its key is gone)');
    probe ??= existsSync(settings.probePath) ? readFileSync(settings.probePath) : null;
    return {
      docker: await engine.docker(),
      registry: { address: row.registry, username: REGISTRY_USER, password },
      registryCa: await authorityPem(),
      registryLock,
      router: { image: settings.proxyImage, bind: settings.router, key: routerKeyOf(password) },
      probe,
    };
  };
}

/** The key the host's Caddy gives the router with each request; null while the installation is a single server. */
export function clusterRouterKey(cmd: CommandContext): () => Promise<string | null> {
  let key: string | null = null;
  return async () => {
    if (key) return key;
    const password = await registryPassword(cmd);
    key = password === null ? null : routerKeyOf(password);
    return key;
  };
}
