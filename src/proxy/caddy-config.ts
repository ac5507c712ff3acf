import { KEY_HEADER, PORT_HEADER, UPSTREAM_HEADER } from '../cluster/cluster-router.js';

export interface ProxyRoute {
  /** Stable per service, so one route can be addressed through `/id/<id>`. */
  id: string;
  hostnames: string[];
  /** The service's own port: Caddy listens on it and forwards to the current container. */
  hostPort: number;
  /** Where the current container answers; null while nothing is deployed. */
  upstream: Upstream | null;
  /** True while the service is stopped on request: every route of it answers 503 with a page saying so. */
  stopped?: boolean;
}

export interface Upstream {
  host: string;
  port: number;
  /** Cluster mode: the upstream is the cluster's router, told which Swarm service and port to reach. */
  via?: { name: string; port: number; key: string };
}

export interface HttpsSettings {
  httpPort: number;
  httpsPort: number;
  acmeDirectoryUrl: string;
  acmeEmail: string | null;
  /** PEM files the ACME directory's own TLS certificate chains to, when it is a private one. */
  trustedRootsPemFiles: string[];
}

export interface ProxySettings {
  adminListen: string;
  httpListen: string[];
  /** null: HTTP only (an installation behind another proxy, or no domains that need certificates). */
  https?: HttpsSettings | null;
  /** The API itself on its own domain (`apiDomain`): where Caddy reaches it (`unix/<socket>` or host:port). */
  api?: { hostname: string; dial: string } | null;
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

function forwardTo(upstream: Upstream) {
  const via = upstream.via ? { [UPSTREAM_HEADER]: [upstream.via.name], [PORT_HEADER]: [String(upstream.via.port)], [KEY_HEADER]: [upstream.via.key] } : {};
  return {
    handler: 'reverse_proxy',
    upstreams: [{ dial: `${upstream.host}:${upstream.port}` }],
    // A connection refused while a route switches is retried instead of answered with 502.
    load_balancing: { try_duration: '3s', try_interval: '100ms' },
    headers: { request: { set: { [PROXIED]: ['1'], ...via } } },
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

/**
 * The API on its domain. With HTTPS, browsers are told to use nothing else for a year (HSTS); answers stream
 * as they are written (the deployment and log streams).
 */
function apiRoute(api: { hostname: string; dial: string }, https: boolean) {
  const hsts = { handler: 'headers', response: { set: { 'Strict-Transport-Security': ['max-age=31536000'] } } };
  return {
    '@id': 'slipway-api',
    match: [{ host: [api.hostname] }],
    handle: [...(https ? [hsts] : []), { handler: 'reverse_proxy', upstreams: [{ dial: api.dial }], flush_interval: -1 }],
    terminal: true,
  };
}

/**
 * What a stopped service's routes answer: that the site is stopped, and nothing else. Its visitors are not
 * told the service's name inside Slipway, nor how it runs.
 */
const STOPPED_PAGE = {
  handler: 'static_response',
  status_code: 503,
  headers: { 'Content-Type': ['text/html; charset=utf-8'], 'Cache-Control': ['no-store'], 'Retry-After': ['60'] },
  body:
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Stopped</title></head>\n' +
    '<body><h1>This site is stopped</h1><p>Its owner stopped it. It answers again once it is started.</p></body></html>\n',
};

/** Where a route leads: the stopped page, the current container, or the note that nothing is deployed yet. */
function handlerOf(route: ProxyRoute) {
  if (route.stopped) return STOPPED_PAGE;
  return route.upstream ? forwardTo(route.upstream) : NOT_DEPLOYED;
}

const NOT_DEPLOYED = { handler: 'static_response', status_code: 503, body: 'This service has no running deployment yet.\n' };

/**
 * Caddy's automatic HTTPS: a certificate per domain from the configured ACME directory, obtained and renewed
 * by Caddy, with its HTTP-01 challenge and the redirect to HTTPS answered on the HTTP port. TLS-ALPN is off:
 * validation needs only the HTTP port to be reachable, which installations open anyway.
 */
function acmeAutomation(https: HttpsSettings) {
  return {
    automation: {
      policies: [
        {
          issuers: [
            {
              module: 'acme',
              ca: https.acmeDirectoryUrl,
              ...(https.acmeEmail ? { email: https.acmeEmail } : {}),
              ...(https.trustedRootsPemFiles.length ? { trusted_roots_pem_files: https.trustedRootsPemFiles } : {}),
              challenges: { 'tls-alpn': { disabled: true } },
            },
          ],
        },
      ],
    },
  };
}

/**
 * With HTTPS, plain HTTP to a served name is redirected to it on the HTTPS port, named when it is not 443
 * (Caddy 2.6's own redirect leaves a non-default port out). Caddy answers ACME challenges on every server
 * before its routes, so this one on the HTTP port still lets certificates be issued.
 */
function httpsRedirectServer(https: HttpsSettings, hostnames: readonly string[]) {
  const port = https.httpsPort === 443 ? '' : `:${https.httpsPort}`;
  return {
    listen: [`:${https.httpPort}`],
    routes: [
      ...(hostnames.length > 0
        ? [{ match: [{ host: [...hostnames].sort() }], handle: [{ handler: 'static_response', status_code: 308, headers: { Location: [`https://{http.request.host}${port}{http.request.uri}`] } }], terminal: true }]
        : []),
      { handle: [{ handler: 'static_response', status_code: 404, body: 'No Slipway service answers for this host.\n' }] },
    ],
  };
}

/** The whole Caddy configuration as a pure function of the routing read model. */
export function buildCaddyConfig(settings: ProxySettings, routes: readonly ProxyRoute[]) {
  const https = settings.https ?? null;
  for (const route of routes) {
    assertPort(route.hostPort);
    if (route.upstream) assertPort(route.upstream.port);
  }
  const portServers = Object.fromEntries(
    routes
      .filter((r) => r.upstream !== null || r.stopped)
      .map((r) => [
        `port-${r.hostPort}`,
        {
          listen: [`:${r.hostPort}`],
          automatic_https: { disable: true },
          routes: [LOOP_GUARD, { '@id': `slipway-port-${r.id}`, handle: [handlerOf(r)] }],
        },
      ]),
  );
  return {
    admin: { listen: settings.adminListen },
    apps: {
      ...(https ? { tls: acmeAutomation(https) } : {}),
      http: {
        ...(https ? { http_port: https.httpPort, https_port: https.httpsPort } : {}),
        servers: {
          slipway: {
            // With HTTPS the domains are served on the HTTPS port; on the HTTP port, `slipway-http` redirects to
            // them and Caddy answers the ACME challenges first (an unknown name gets no certificate: its TLS
            // handshake fails).
            ...(https ? { listen: [`:${https.httpsPort}`], automatic_https: { disable_redirects: true } } : { listen: settings.httpListen, automatic_https: { disable: true } }),
            routes: [
              ...(settings.api ? [apiRoute(settings.api, https !== null)] : []),
              ...routes
                .filter((r) => r.hostnames.length > 0)
                .map((route) => ({
                  '@id': `slipway-${route.id}`,
                  match: [{ host: [...route.hostnames].sort() }],
                  handle: [handlerOf(route)],
                  terminal: true,
                })),
              {
                // Without a catch-all Caddy answers 200 with an empty body for unknown hosts.
                handle: [{ handler: 'static_response', status_code: 404, body: 'No Slipway service answers for this host.\n' }],
              },
            ],
          },
          ...(https ? { 'slipway-http': httpsRedirectServer(https, [...(settings.api ? [settings.api.hostname] : []), ...routes.flatMap((r) => r.hostnames)]) } : {}),
          ...portServers,
        },
      },
    },
  };
}
