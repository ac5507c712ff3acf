import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { bareAddress, familyOf } from './address-ranges.js';

/** One entry of `allowedDestinations`: a network (an address is a network of one) and, if given, a port. */
export interface AllowedDestination {
  network: string;
  prefix: number;
  port: number | null;
}

const IPV4 = /^(?<network>[0-9.]+)(?:\/(?<prefix>\d{1,2}))?(?::(?<port>\d{1,5}))?$/;
const IPV6_BRACKETED = /^\[(?<network>[0-9a-f:.]+)(?:\/(?<prefix>\d{1,3}))?\](?::(?<port>\d{1,5}))?$/i;
const IPV6_BARE = /^(?<network>[0-9a-f.]*:[0-9a-f:.]*)(?:\/(?<prefix>\d{1,3}))?$/i;

/** The entry, or null when it is not one: `127.0.0.1:3000`, `127.0.0.0/8`, `[::1]:8080`, `::1`, `10.0.0.0/8`. */
export function parseDestination(text: string): AllowedDestination | null {
  const trimmed = text.trim().toLowerCase();
  const match = IPV4.exec(trimmed) ?? IPV6_BRACKETED.exec(trimmed) ?? IPV6_BARE.exec(trimmed);
  if (!match?.groups) return null;
  const { network, prefix, port } = match.groups as { network: string; prefix?: string; port?: string };
  const version = isIP(network);
  if (version === 0) return null;
  const bits = version === 4 ? 32 : 128;
  const length = prefix === undefined ? bits : Number(prefix);
  const portNumber = port === undefined ? null : Number(port);
  if (length > bits || (portNumber !== null && (portNumber < 1 || portNumber > 65535))) return null;
  return { network, prefix: length, port: portNumber };
}

/** The one spelling of an entry, so that equal lists compare equal. */
export function formatDestination({ network, prefix, port }: AllowedDestination): string {
  const v6 = familyOf(network) === 'ipv6';
  const bits = v6 ? 128 : 32;
  const net = prefix === bits ? network : `${network}/${prefix}`;
  if (port === null) return net;
  return v6 ? `[${net}]:${port}` : `${net}:${port}`;
}

export const destinationEntry = z
  .string()
  .max(100)
  .transform((text, ctx) => {
    const parsed = parseDestination(text);
    if (parsed) return formatDestination(parsed);
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)} is not a network with an optional port, such as 127.0.0.1:3000, 10.0.0.0/8, [::1]:8080 or ::1` });
    return z.NEVER;
  });

/** The list as stored: canonical entries, each once. */
export const allowedDestinationsSchema = z
  .array(destinationEntry)
  .max(200)
  .transform((entries) => [...new Set(entries)]);

/** The environment's comma-separated list (`SLIPWAY_ALLOW_DESTINATIONS`). */
export const allowedDestinationsList = z
  .string()
  .optional()
  .transform((s) => (s ?? '').split(',').map((e) => e.trim()).filter(Boolean))
  .pipe(allowedDestinationsSchema);

/** Whether an entry allows a connection to `address` on `port`. */
export function allows(entry: AllowedDestination, address: string, port: number): boolean {
  if (entry.port !== null && entry.port !== port) return false;
  const list = new BlockList();
  list.addSubnet(entry.network, entry.prefix, familyOf(entry.network));
  const bare = bareAddress(address);
  return list.check(bare, familyOf(bare));
}
