import { isIPv6 } from 'node:net';
import type { Context } from 'koa';

/**
 * The address a request comes from, as the limits count it. IPv6 clients are counted by their /64: one
 * host commonly holds a whole /64 and could otherwise rotate through it.
 */
export function clientAddressOf(ctx: Context): string {
  const raw = ctx.req.socket.remoteAddress ?? 'unknown';
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
