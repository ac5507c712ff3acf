import { BlockList, isIP } from 'node:net';

/** What an address is, as far as the outbound policy cares; the first range that holds it wins. */
export type AddressKind = 'loopback' | 'reserved' | 'link-local' | 'multicast' | 'private' | 'public';

type Range = [network: string, prefix: number];

// Node's BlockList also matches the IPv4-mapped IPv6 form (::ffff:127.0.0.1) of every IPv4 range.
const RANGES: [Exclude<AddressKind, 'public'>, Range[]][] = [
  ['loopback', [['127.0.0.0', 8], ['::1', 128]]],
  // 0/8 reaches this host on Linux; 240/4 holds the broadcast address; ::/96 is unspecified and the
  // deprecated IPv4-compatible form (::127.0.0.1).
  ['reserved', [['0.0.0.0', 8], ['240.0.0.0', 4], ['::', 96]]],
  ['link-local', [['169.254.0.0', 16], ['fe80::', 10]]],
  ['multicast', [['224.0.0.0', 4], ['ff00::', 8]]],
  // RFC 1918, the carrier-grade NAT range (a cloud's metadata service may live there), unique local and
  // the deprecated site-local IPv6 ranges.
  ['private', [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10], ['fc00::', 7], ['fec0::', 10]]],
];

export const familyOf = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 4 ? 'ipv4' : 'ipv6');

/** A BlockList holding the given subnets. */
export function subnets(ranges: readonly Range[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, familyOf(network));
  return list;
}

const LISTS = RANGES.map(([kind, ranges]) => [kind, subnets(ranges)] as const);

/** An address as BlockList takes it: without an IPv6 zone (`fe80::1%eth0`). */
export const bareAddress = (address: string) => address.replace(/%.*$/, '');

/** Which range `address` (an IPv4 or IPv6 literal) falls in. */
export function addressKind(address: string): AddressKind {
  const bare = bareAddress(address);
  const family = familyOf(bare);
  for (const [kind, list] of LISTS) if (list.check(bare, family)) return kind;
  return 'public';
}
