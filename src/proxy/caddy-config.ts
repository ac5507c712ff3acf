export interface ProxyRoute {
  /** Stable per service, so one route can be addressed through `/id/<id>`. */
  id: string;
  hostnames: string[];
  upstream: { host: string; port: number };
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
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`invalid upstream port ${port}`);
}

/** The whole Caddy configuration as a pure function of the routing read model. */
export function buildCaddyConfig(settings: ProxySettings, routes: readonly ProxyRoute[]) {
  const served = routes.filter((r) => r.hostnames.length > 0);
  for (const route of served) assertPort(route.upstream.port);
  return {
    admin: { listen: settings.adminListen },
    apps: {
      http: {
        servers: {
          slipway: {
            listen: settings.httpListen,
            automatic_https: { disable: true },
            routes: [
              ...served.map((route) => ({
                '@id': `slipway-${route.id}`,
                match: [{ host: [...route.hostnames].sort() }],
                handle: [
                  {
                    handler: 'reverse_proxy',
                    upstreams: [{ dial: `${route.upstream.host}:${route.upstream.port}` }],
                  },
                ],
                terminal: true,
              })),
              {
                // Without a catch-all Caddy answers 200 with an empty body for unknown hosts.
                handle: [
                  { handler: 'static_response', status_code: 404, body: 'No Slipway service answers for this host.\n' },
                ],
              },
            ],
          },
        },
      },
    },
  };
}
