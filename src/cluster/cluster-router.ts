import { createHash, createHmac } from 'node:crypto';
import type Docker from 'dockerode';
import { LABEL } from '../runtime/container-runtime.js';
import { ensureConfiguredContainer, localImageId } from './configured-container.js';

/**
 * In cluster mode the host's Caddy (domains, HTTPS, host ports) forwards a Swarm service's requests to this
 * router, a Caddy container on the manager attached to every project's overlay. The host's Caddy names the
 * Swarm service and port in two headers; the router resolves the name on the overlay (dnsrr: one address per
 * healthy task) every second and retries while tasks come and go. Its config never changes with deployments.
 * It sits on every project's overlay, so it serves only requests that carry the installation's router key:
 * a task of one project cannot name another project's service to it.
 */
export const ROUTER_CONTAINER = 'slipway-cluster-router';
export const UPSTREAM_HEADER = 'X-Slipway-Upstream';
export const PORT_HEADER = 'X-Slipway-Port';
export const KEY_HEADER = 'X-Slipway-Router-Key';
const ROUTER_PORT = 8080;
const CONFIG_PATH = '/etc/slipway/router.json';
/**
 * The router's own bridge network, on which it starts. On Docker's default bridge a container's resolv.conf
 * is the host's; it names the engine's DNS (127.0.0.11) only once the container joins a network of its own,
 * and the Caddy already running keeps using the file it read at start for 5 s from its first lookup (Go
 * re-reads resolv.conf at most every 5 s): the first request after a first deployment waited that long, or failed.
 */
export const ROUTER_NETWORK = 'slipway-router';
const CONFIG_LABEL = 'slipway.router.config';

/** A Swarm service of Slipway's by the service's id: the only names the router resolves. */
export const swarmServiceName = (serviceId: string) => `slipway-s-${serviceId}`;
const SWARM_NAME = '^slipway-s-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

/** The router's key, derived from the registry's password: stable across restarts and read-model rebuilds. */
export const routerKeyOf = (registryPassword: string) => createHmac('sha256', registryPassword).update('slipway-cluster-router').digest('hex');

export function routerConfig(key: string) {
  return {
    // Inside the container only: the admin API is never published.
    admin: { listen: 'localhost:2019' },
    apps: {
      http: {
        servers: {
          router: {
            listen: [`:${ROUTER_PORT}`],
            automatic_https: { disable: true },
            routes: [
              {
                match: [
                  {
                    header: { [KEY_HEADER]: [key] },
                    header_regexp: { [UPSTREAM_HEADER]: { pattern: SWARM_NAME }, [PORT_HEADER]: { pattern: '^[0-9]{1,5}$' } },
                  },
                ],
                handle: [
                  {
                    handler: 'reverse_proxy',
                    dynamic_upstreams: { source: 'a', name: `{http.request.header.${UPSTREAM_HEADER}}`, port: `{http.request.header.${PORT_HEADER}}`, refresh: '1s' },
                    // A task that just left is retried on another (its address is gone from DNS within a second);
                    // a dial to an address no longer there gives up after 2 s (one lost SYN is resent at 1 s).
                    // The engine's DNS itself stops answering for seconds while a node's tasks churn (seen: over
                    // 5 s in a drain on a loaded machine): a request waits up to 15 s for it rather than failing.
                    load_balancing: { try_duration: '15s', try_interval: '250ms' },
                    transport: { protocol: 'http', dial_timeout: '2s' },
                    headers: { request: { delete: [UPSTREAM_HEADER, PORT_HEADER, KEY_HEADER] } },
                  },
                ],
              },
              { handle: [{ handler: 'static_response', status_code: 421, body: 'not a Slipway service' }] },
            ],
          },
        },
      },
    },
  };
}

/**
 * Starts the router (or keeps the one running from the same image and config), publishing it on `bind`
 * (`host:port`): loopback on a real manager, where the host's Caddy runs too.
 */
export async function ensureRouter(docker: Docker, opts: { image: string; bind: { host: string; port: number }; key: string }) {
  const config = JSON.stringify(routerConfig(opts.key));
  const imageId = await localImageId(docker, opts.image);
  await ensureRouterNetwork(docker);
  await ensureConfiguredContainer(docker, {
    name: ROUTER_CONTAINER,
    stampLabel: CONFIG_LABEL,
    // A digest: the label shows in `docker inspect`, the key must not. The network is in it so that a router
    // started on the default bridge (before it had its own) is replaced.
    stamp: createHash('sha256').update(JSON.stringify([imageId, opts.bind, config, ROUTER_NETWORK])).digest('hex'),
    build: async () => ({
      options: {
        Image: imageId,
        Cmd: ['caddy', 'run', '--config', CONFIG_PATH],
        Labels: { [LABEL.managed]: 'true', 'slipway.role': 'cluster-router' },
        ExposedPorts: { [`${ROUTER_PORT}/tcp`]: {} },
        HostConfig: {
          NetworkMode: ROUTER_NETWORK,
          PortBindings: { [`${ROUTER_PORT}/tcp`]: [{ HostIp: opts.bind.host, HostPort: String(opts.bind.port) }] },
          RestartPolicy: { Name: 'unless-stopped' },
          LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
          // Every request waits for the re-resolution due (each second): the engine's DNS answer that comes late
          // or not at all while tasks churn is asked again after 1 s, not after the default 5 s.
          DnsOptions: ['timeout:1', 'attempts:3'],
        },
      },
      files: [{ path: CONFIG_PATH, mode: 0o644, content: config }],
    }),
  });
}

/** The router's bridge network on the manager, made once. */
async function ensureRouterNetwork(docker: Docker) {
  const exists = await docker
    .getNetwork(ROUTER_NETWORK)
    .inspect()
    .then(
      () => true,
      (error: { statusCode?: number }) => {
        if (error.statusCode === 404) return false;
        throw error;
      },
    );
  if (exists) return;
  await docker
    .createNetwork({ Name: ROUTER_NETWORK, Driver: 'bridge', CheckDuplicate: true, Labels: { [LABEL.managed]: 'true', 'slipway.role': 'cluster-router' } })
    .catch((error: { statusCode?: number }) => {
      // Made meanwhile by a concurrent deployment.
      if (error.statusCode !== 409) throw error;
    });
}

/**
 * Attaches the router to every project's overlay it is not on yet: the one just made, and all of them again
 * after the router was replaced (a new container starts on none).
 */
export async function connectRouterToOverlays(docker: Docker) {
  const info = await docker.getContainer(ROUTER_CONTAINER).inspect();
  const joined = new Set(Object.keys(info.NetworkSettings.Networks ?? {}));
  const overlays = await docker.listNetworks({ filters: { driver: ['overlay'], label: [LABEL.project] } });
  for (const overlay of overlays) {
    if (joined.has(overlay.Name)) continue;
    await docker
      .getNetwork(overlay.Id)
      .connect({ Container: info.Id })
      .catch((error: { statusCode?: number; message?: string }) => {
        // Removed meanwhile with its project, or joined by a concurrent deployment.
        if (error.statusCode !== 404 && !/already exists/.test(error.message ?? '')) throw error;
      });
  }
}
