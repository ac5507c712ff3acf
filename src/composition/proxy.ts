import { join } from 'node:path';
import type { ProjectionRunner } from '../../projections/runner.js';
import { clusterRouterKey } from '../cluster/cluster-target.js';
import type { Config } from '../config.js';
import type { SqlClient } from '../db/sql-client.js';
import { apiSocketPath } from '../proxy/api-socket-path.js';
import type { EffectiveSettings } from '../installation-settings.js';
import type { Logger } from '../logger.js';
import { ProxyReconciler, type ProxyTarget } from '../processes/proxy-reconciler.js';
import { CaddyAdminClient } from '../proxy/caddy-admin-client.js';
import { CaddySupervisor } from '../proxy/caddy-supervisor.js';
import { createIptablesSwitch, type UpstreamSwitch } from '../proxy/upstream-switch.js';
import type { CommandContexts } from './command-contexts.js';

export interface ProxyDeps {
  config: Config;
  log: Logger;
  db: SqlClient;
  runner: ProjectionRunner;
  settings(): Promise<EffectiveSettings>;
  commandContext: CommandContexts;
  instance: string;
  /** Off for one-shot CLI commands: no Caddy is started or reloaded. */
  useProxy: boolean;
}

export interface Proxy {
  reconciler: ProxyReconciler;
  /** The Caddy this process runs, if it runs one. */
  supervisor: CaddySupervisor | null;
  /** The NAT switch deployments move, when this host can use one. */
  upstreams: UpstreamSwitch | null;
  /** Starts Caddy, or loads the routes into the operator's Caddy. */
  start(): Promise<void>;
  stopWatching(): void;
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

function proxyTarget(config: Config, log: Logger, onReady: () => Promise<void>): { target: ProxyTarget; supervisor: CaddySupervisor | null } {
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
  return { target: { client: supervisor.client, unavailable: () => supervisor.unavailable }, supervisor };
}

export async function startProxy({ config, log, db, runner, settings, commandContext, instance, useProxy }: ProxyDeps): Promise<Proxy> {
  let reconciler: ProxyReconciler | null = null;
  const { target, supervisor } = useProxy
    ? proxyTarget(config, log, async () => {
        const result = await reconciler!.reloadNow();
        if (!result.ok) log.warn('proxy reload failed', { detail: result.detail });
      })
    : { target: { client: null, unavailable: () => 'proxy not started by this command' }, supervisor: null };
  // Only a Caddy on this host (the one Slipway runs) sees this host's NAT rules.
  const upstreams = supervisor && config.proxy.upstreamSwitch === 'iptables' ? await createIptablesSwitch(instance, config.dataDir) : null;
  if (supervisor && !upstreams) log.info('deployments switch routes by reloading Caddy (iptables is not usable here)');
  const started = new ProxyReconciler(
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
  reconciler = started;
  return {
    reconciler: started,
    supervisor,
    upstreams,
    stopWatching: started.watchUpstreams(config.proxy.upstreamCheckMs),
    async start() {
      if (supervisor) await supervisor.start();
      else if (useProxy && config.proxy.externalAdminUrl) await started.reloadNow();
    },
  };
}
