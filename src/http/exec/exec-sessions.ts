import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { EXEC_PROTOCOL } from '../contract/exec.js';
import { ExecSessionSlots } from './session-limits.js';
import type { OpenBridge } from './terminal-bridge.js';

/** The largest message a client may send (a paste into the terminal). */
const MAX_CLIENT_MESSAGE_BYTES = 256 * 1024;

/**
 * The installation's terminal sessions: their slots, the WebSocket handshake, and their end when Slipway stops
 * (an upgraded socket is no longer the HTTP server's: closing the server alone would wait for it forever).
 */
export class ExecSessions {
  readonly slots = new ExecSessionSlots();
  private readonly open = new Set<OpenBridge>();
  private readonly endings = new Set<Promise<unknown>>();
  private readonly server = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: MAX_CLIENT_MESSAGE_BYTES,
    // The client offers the protocol (and a dashboard session its CSRF token as another); only ours is chosen.
    handleProtocols: (offered) => (offered.has(EXEC_PROTOCOL) ? EXEC_PROTOCOL : false),
  });

  /** Completes the handshake on a socket the route took; null when the client is already gone. */
  accept(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<WebSocket | null> {
    if (socket.destroyed || !socket.writable) return Promise.resolve(null);
    return new Promise((resolve) => {
      socket.once('close', () => resolve(null));
      this.server.handleUpgrade(request, socket, head, (ws) => resolve(ws));
    });
  }

  /** Keeps a bridge until it ends; `ended` is the recording of its end, waited for at shutdown. */
  track(bridge: OpenBridge): (ending: Promise<unknown>) => void {
    this.open.add(bridge);
    return (ending) => {
      this.open.delete(bridge);
      this.endings.add(ending);
      void ending.finally(() => this.endings.delete(ending));
    };
  }

  /** Ends every open session (their commands are killed) and waits until each end is recorded. */
  async shutdown(): Promise<void> {
    const killed = [...this.open].map((bridge) => bridge.shutdown());
    await Promise.allSettled([...killed, ...this.endings]);
  }
}
