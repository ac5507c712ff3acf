import { chmodSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { apiSocketPath } from '../proxy/api-socket-path.js';
import { routeUpgrades } from './upgrades.js';

/**
 * The API on a Unix socket, for the proxy in front of `apiDomain`. Requests that arrive here come from that
 * proxy, which sets X-Forwarded-For to the client's address (Caddy replaces what a client sends): the limits
 * count that address (see clientAddressOf).
 */
export async function listenApiSocket(handler: RequestListener, dataDir: string): Promise<Server> {
  const path = apiSocketPath(dataDir);
  rmSync(path, { force: true });
  const server = createServer(handler);
  routeUpgrades(server, handler);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  chmodSync(path, 0o600);
  return server;
}
