import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import { pack as tarPack } from 'tar-stream';
import { LABEL } from '../runtime/container-runtime.js';

/**
 * In cluster mode the host's Caddy (domains, HTTPS, host ports) forwards a Swarm service's requests to this
 * router, a Caddy container on the manager attached to every project's overlay. The host's Caddy names the
 * Swarm service and port in two headers; the router resolves the name on the overlay (dnsrr: one address per
 * healthy task) every second and retries while tasks come and go. Its config never changes with deployments.
 */
export const ROUTER_CONTAINER = 'slipway-cluster-router';
export const UPSTREAM_HEADER = 'X-Slipway-Upstream';
export const PORT_HEADER = 'X-Slipway-Port';
const ROUTER_PORT = 8080;
const CONFIG_PATH = '/etc/slipway/router.json';
const CONFIG_LABEL = 'slipway.router.config';

/** A Swarm service of Slipway's by the service's id: the only names the router resolves. */
export const swarmServiceName = (serviceId: string) => `slipway-s-${serviceId}`;
const SWARM_NAME = '^slipway-s-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

export function routerConfig() {
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
                match: [{ header_regexp: { [UPSTREAM_HEADER]: { pattern: SWARM_NAME }, [PORT_HEADER]: { pattern: '^[0-9]{1,5}$' } } }],
                handle: [
                  {
                    handler: 'reverse_proxy',
                    dynamic_upstreams: { source: 'a', name: `{http.request.header.${UPSTREAM_HEADER}}`, port: `{http.request.header.${PORT_HEADER}}`, refresh: '1s' },
                    // A task that just left is retried on another (its address is gone from DNS within a second).
                    load_balancing: { try_duration: '5s', try_interval: '250ms' },
                    headers: { request: { delete: [UPSTREAM_HEADER, PORT_HEADER] } },
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

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/**
 * Starts the router (or keeps the one running from the same image and config), publishing it on `bind`
 * (`host:port`): loopback on a real manager, where the host's Caddy runs too.
 */
export async function ensureRouter(docker: Docker, opts: { image: string; bind: { host: string; port: number } }) {
  const config = JSON.stringify(routerConfig());
  const stamp = createHash('sha256').update(JSON.stringify([opts.image, opts.bind, config])).digest('hex');
  const existing = await docker
    .getContainer(ROUTER_CONTAINER)
    .inspect()
    .catch((error: unknown) => {
      if (statusOf(error) === 404) return null;
      throw error;
    });
  if (existing?.Config.Labels[CONFIG_LABEL] === stamp) {
    if (!existing.State.Running) await docker.getContainer(existing.Id).start();
    return;
  }
  if (existing) await docker.getContainer(existing.Id).remove({ force: true });
  const container = await docker.createContainer({
    name: ROUTER_CONTAINER,
    Image: opts.image,
    Cmd: ['caddy', 'run', '--config', CONFIG_PATH],
    Labels: { [LABEL.managed]: 'true', 'slipway.role': 'cluster-router', [CONFIG_LABEL]: stamp },
    ExposedPorts: { [`${ROUTER_PORT}/tcp`]: {} },
    HostConfig: {
      PortBindings: { [`${ROUTER_PORT}/tcp`]: [{ HostIp: opts.bind.host, HostPort: String(opts.bind.port) }] },
      RestartPolicy: { Name: 'unless-stopped' },
      LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
    },
  });
  const files = tarPack();
  files.entry({ name: CONFIG_PATH.slice(1), mode: 0o644 }, config);
  files.finalize();
  // tar-stream's Pack is a Readable; its type names a newer stream API than dockerode's.
  await container.putArchive(files as unknown as NodeJS.ReadableStream, { path: '/' });
  await container.start();
}

/** Attaches the router to a project's overlay, so it resolves that project's services. */
export async function connectRouter(docker: Docker, network: string) {
  const info = await docker.getContainer(ROUTER_CONTAINER).inspect();
  if (Object.keys(info.NetworkSettings.Networks ?? {}).includes(network)) return;
  await docker.getNetwork(network).connect({ Container: info.Id });
}
