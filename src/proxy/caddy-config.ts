export interface ProxyRoute {
  /** Stable per service, so one route can be addressed through `/id/<id>`. */
  id: string;
  hostnames: string[];
  /** The service's own port: Caddy listens on it and forwards to the current container. */
  hostPort: number;
  /** Where the current container answers; null while nothing is deployed. */
  upstream: { host: string; port: number } | null;
}

export interface ProxySettings {
  adminListen: string;
  httpListen: string[];
}

export interface ProxyResult {
  ok: boolean;
  detail: string;
}

function assertPort(port: number) {
  // Caddy accepts a bad port at load time and only fails per request.
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`invalid port ${port}`);
}

const PROXIED = 'X-Slipway-Proxied';

function forwardTo(upstream: { host: string; port: number }) {
  return {
    handler: 'reverse_proxy',
    upstreams: [{ dial: `${upstream.host}:${upstream.port}` }],
    // A connection refused while a route switches is retried instead of answered with 502.
    load_balancing: { try_duration: '3s', try_interval: '100ms' },
    headers: { request: { set: { [PROXIED]: ['1'] } } },
    // A fresh loopback connection per request: pooled ones would keep reaching the previous container
    // (the kernel keeps their NAT) until it is retired, so a switch would not take effect at once.
    transport: { protocol: 'http', keep_alive: { enabled: false } },
  };
}

/**
 * Caddy listens on every address of a host port, the stable NAT address included: should the NAT rule be
 * missing (a flushed firewall), a forwarded request would come back to Caddy. It is answered, not looped.
 */
const LOOP_GUARD = {
  match: [{ header: { [PROXIED]: ['1'] } }],
  handle: [{ handler: 'static_response', status_code: 502, body: 'The route to this service is being restored.\n' }],
  terminal: true,
};

const NOT_DEPLOYED = { handler: 'static_response', status_code: 503, body: 'This service has no running deployment yet.\n' };

/** The whole Caddy configuration as a pure function of the routing read model. */
export function buildCaddyConfig(settings: ProxySettings, routes: readonly ProxyRoute[]) {
  for (const route of routes) {
    assertPort(route.hostPort);
    if (route.upstream) assertPort(route.upstream.port);
  }
  const portServers = Object.fromEntries(
    routes
      .filter((r) => r.upstream !== null)
      .map((r) => [
        `port-${r.hostPort}`,
        {
          listen: [`:${r.hostPort}`],
          automatic_https: { disable: true },
          routes: [LOOP_GUARD, { '@id': `slipway-port-${r.id}`, handle: [forwardTo(r.upstream!)] }],
        },
      ]),
  );
  return {
    admin: { listen: settings.adminListen },
    apps: {
      http: {
        servers: {
          slipway: {
            listen: settings.httpListen,
            automatic_https: { disable: true },
            routes: [
              ...routes
                .filter((r) => r.hostnames.length > 0)
                .map((route) => ({
                  '@id': `slipway-${route.id}`,
                  match: [{ host: [...route.hostnames].sort() }],
                  handle: [route.upstream ? forwardTo(route.upstream) : NOT_DEPLOYED],
                  terminal: true,
                })),
              {
                // Without a catch-all Caddy answers 200 with an empty body for unknown hosts.
                handle: [{ handler: 'static_response', status_code: 404, body: 'No Slipway service answers for this host.\n' }],
              },
            ],
          },
          ...portServers,
        },
      },
    },
  };
}
