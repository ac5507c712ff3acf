import { ServerResponse, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

interface PendingUpgrade {
  socket: Duplex;
  head: Buffer;
  response: ServerResponse;
}

const pending = new WeakMap<IncomingMessage, PendingUpgrade>();

/**
 * Upgrade requests (the terminal's WebSocket) go through the same app as every request, with a response written
 * onto their socket: authentication, scope and the error body are the API's own. A route that takes the upgrade
 * (`takeUpgrade`) owns the socket; any other answer is written as plain HTTP and the socket closed after it,
 * never left half open.
 */
export function routeUpgrades(server: Server, handler: RequestListener): void {
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket as never);
    response.on('finish', () => {
      if (pending.has(request)) {
        pending.delete(request);
        // Closed outright once the answer is out: a client that keeps its side open must not hold the server.
        (socket as Duplex & { destroySoon?: () => void }).destroySoon?.() ?? socket.end();
      }
    });
    pending.set(request, { socket, head, response });
    handler(request, response);
  });
}

/** The socket of an upgrade request, now the caller's; null for a request that did not ask for an upgrade. */
export function takeUpgrade(request: IncomingMessage): { socket: Duplex; head: Buffer } | null {
  const upgrade = pending.get(request);
  if (!upgrade) return null;
  pending.delete(request);
  upgrade.response.detachSocket(upgrade.socket as never);
  return { socket: upgrade.socket, head: upgrade.head };
}
