import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { CSRF_PROTOCOL_PREFIX } from '../contract/exec.js';
import { forbidden, HttpError } from '../errors.js';

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The handshake a WebSocket client sends (RFC 6455): refused here with the API's error body, not by the library. */
export function requireWebSocketUpgrade(ctx: Context): void {
  const upgrade = ctx.get('upgrade').toLowerCase();
  if (upgrade !== 'websocket') throw new HttpError(426, 'upgrade_required', 'this endpoint is a WebSocket: send Upgrade: websocket', [], { Upgrade: 'websocket' });
  if (!/^[+/0-9A-Za-z]{22}==$/.test(ctx.get('sec-websocket-key')) || ctx.get('sec-websocket-version') !== '13') {
    throw new HttpError(400, 'validation_failed', 'a WebSocket upgrade needs Sec-WebSocket-Key and Sec-WebSocket-Version: 13');
  }
}

/**
 * A dashboard session may open a terminal only from the dashboard itself: a browser sends the cookie with a
 * WebSocket from any site (cross-site WebSocket hijacking), but only the dashboard knows the CSRF token, offered
 * as the subprotocol `csrf.<token>`; and its `Origin` must be this server's own.
 */
export function requireSessionUpgradeChecks(ctx: Context, session: { csrfToken: string }): void {
  const offered = ctx
    .get('sec-websocket-protocol')
    .split(',')
    .map((p) => p.trim())
    .find((p) => p.startsWith(CSRF_PROTOCOL_PREFIX));
  if (!offered || !sameText(offered.slice(CSRF_PROTOCOL_PREFIX.length), session.csrfToken)) {
    throw forbidden('a terminal through the session cookie needs its CSRF token, offered as the WebSocket subprotocol csrf.<token>');
  }
  if (!sameOrigin(ctx.get('origin'), ctx.get('host'))) throw forbidden('a terminal through the session cookie must be opened from this server’s own pages (Origin)');
}

/** Whether `origin` is the site `host` names (its host and port; an absent or opaque origin is not). */
export function sameOrigin(origin: string, host: string): boolean {
  if (!origin || !host) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}
