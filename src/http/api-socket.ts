import { chmodSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { join } from 'node:path';

/** Where the Caddy Slipway runs reaches the API for `apiDomain`: a socket only Slipway's user can open. */
export const apiSocketPath = (dataDir: string) => join(dataDir, 'api.sock');

/**
 * The API on a Unix socket, for the proxy in front of `apiDomain`. Requests that arrive here come from that
 * proxy, which sets X-Forwarded-For to the client's address (Caddy replaces what a client sends): the limits
 * count that address (see clientAddressOf).
 */
export async function listenApiSocket(handler: RequestListener, dataDir: string): Promise<Server> {
  const path = apiSocketPath(dataDir);
  rmSync(path, { force: true });
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  chmodSync(path, 0o600);
  return server;
}
