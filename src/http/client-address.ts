import { isIPv6 } from 'node:net';
import type { Context } from 'koa';

/**
 * The address a request comes from, as the limits count it. A request on the API's Unix socket was relayed
 * by Slipway's Caddy (apiDomain), which sets X-Forwarded-For to its client's address; any other request is
 * counted by its TCP peer, whatever headers it sends. IPv6 clients are counted by their /64: one host
 * commonly holds a whole /64 and could otherwise rotate through it.
 */
export function clientAddressOf(ctx: Context): string {
  const peer = ctx.req.socket.remoteAddress;
  const raw = peer ?? ctx.get('x-forwarded-for').split(',').at(-1)?.trim() ?? '';
  if (raw === '') return 'unknown';
  const address = raw.startsWith('::ffff:') ? raw.slice('::ffff:'.length) : raw;
  if (!isIPv6(address)) return address;
  const groups = expandIPv6(address);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => g.toLowerCase());
}
