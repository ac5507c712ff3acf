import { createServer, type Server } from 'node:http';
import type { Config } from '../config.js';
import { listenApiSocket } from '../http/api-socket.js';
import { closeExecSessions, createHttpApp } from '../http/app.js';
import { endInterruptedExecSessions } from '../../commands/exec-session/handlers.js';
import { unendedExecSessions } from '../../projections/exec-session-queries.js';
import { routeUpgrades } from '../http/upgrades.js';
import type { Logger } from '../logger.js';
import { isLoopbackHost } from '../network.js';
import { requireCaddyBinary } from '../proxy/caddy-binary.js';
import { ensureBootstrapKey, startSlipway, type Slipway, type StartOptions, type StopOptions } from '../slipway.js';
import { listenAdminSocket } from './admin-socket.js';

export interface RunningServer {
  app: Slipway;
  http: Server;
  url: string;
  close(options?: StopOptions): Promise<void>;
}

export async function serve(config: Config, log: Logger, options: Pick<StartOptions, 'onLockLost'> = {}): Promise<RunningServer> {
  // Before the data directory is locked or anything is started: a missing Caddy is a set-up error.
  if (config.proxy.mode === 'caddy' && !config.proxy.externalAdminUrl) requireCaddyBinary(config.proxy.binary);
  const app = await startSlipway(config, log, options);
  const bootstrap = await ensureBootstrapKey(app);
  if (bootstrap) log.info('created the first API key (all projects, write); read it from the file', { file: bootstrap });
  const admin = await listenAdminSocket(app);
  // The read models are caught up and no terminal is open yet: any session without an end was cut short.
  const interrupted = await endInterruptedExecSessions(app.commandContext('system:exec-sessions'), await unendedExecSessions(app.db));
  if (interrupted > 0) log.warn('terminal sessions cut short by the last stop were recorded as interrupted', { sessions: interrupted });
  const koa = createHttpApp(app);
  const handler = koa.callback();
  const http = createServer(handler);
  // The terminal's WebSocket (routes/exec.ts): upgrades go through the same app.
  routeUpgrades(http, handler);
  http.listen(config.port, config.host);
  // Longer than clients' and proxies' idle timeouts, so the server is never the one closing a reused socket.
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => http.once('listening', resolve).once('error', reject));
  // The Caddy Slipway runs reaches the API for apiDomain through a socket (see caddy-config.ts).
  const proxied = config.proxy.mode === 'caddy' && !config.proxy.externalAdminUrl ? await listenApiSocket(handler, config.dataDir) : null;
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  app.api.listeningUrl = url;
  log.info('slipway listening', { url, dataDir: config.dataDir, eventStore: app.store.kind, database: app.db.kind });
  // On the first start, one plain line a person reads among the JSON: where the dashboard is and where the key is.
  if (bootstrap && !config.silent) process.stdout.write(`Slipway is ready: open the dashboard at ${url}/ and sign in with the API key in ${bootstrap}\n`);
  const { apiDomain, httpsEnabled } = await app.settings();
  if (apiDomain && config.proxy.mode === 'off') log.warn('apiDomain is set but there is no proxy (SLIPWAY_PROXY=off): the API is not served on it', { apiDomain });
  else if (apiDomain && !httpsEnabled) log.warn('the API is served on its domain in plain HTTP (httpsEnabled is off): only behind another proxy that does TLS', { apiDomain });
  if (!isLoopbackHost(config.host)) {
    log.warn('the API listens beyond this machine in plain HTTP: keys would cross the network in clear. Serve it over HTTPS on its own domain (the apiDomain setting, SLIPWAY_API_DOMAIN) and keep SLIPWAY_HOST on loopback', { host: config.host });
  }
  return {
    app,
    http,
    url,
    async close(stopOptions: StopOptions = {}) {
      // Open streams (SSE) would hold close() forever: idle sockets go at once, the rest after a short grace.
      // Terminal sessions are ended first, their commands killed and their ends recorded while the store runs.
      await closeExecSessions(koa);
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      const force = setTimeout(() => http.closeAllConnections(), 1000);
      await closed;
      clearTimeout(force);
      await new Promise<void>((resolve) => admin.close(() => resolve()));
      if (proxied) {
        proxied.closeAllConnections();
        await new Promise<void>((resolve) => proxied.close(() => resolve()));
      }
      await app.stop(stopOptions);
    },
  };
}
