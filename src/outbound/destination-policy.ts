import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressKind, bareAddress, familyOf, subnets, type AddressKind } from './address-ranges.js';
import { allows, parseDestination, type AllowedDestination } from './destination-entries.js';
import { ForbiddenDestinationError, UnresolvedDestinationError } from './forbidden-destination.js';
import { currentHostNetworks, type HostNetworks } from './host-networks.js';

/** The installation's settings that shape the policy (`allowedDestinations`, `denyPrivateDestinations`). */
export interface DestinationRules {
  allowed: readonly string[];
  denyPrivate: boolean;
}

const ALWAYS_REFUSED: Partial<Record<AddressKind, string>> = {
  loopback: 'a loopback address',
  reserved: 'an unspecified or reserved address',
  'link-local': 'a link-local address',
  multicast: 'a multicast address',
};

/** Why a connection to `address` on `port` is refused, or null when it may go. Pure. */
export function refusalOf(address: string, port: number, rules: { allowed: readonly AllowedDestination[]; denyPrivate: boolean }, host: HostNetworks): string | null {
  if (rules.allowed.some((entry) => allows(entry, address, port))) return null;
  const kind = addressKind(address);
  const always = ALWAYS_REFUSED[kind];
  if (always) return always;
  const bare = bareAddress(address);
  const own = subnets(host.addresses.map((a) => [a, familyOf(a) === 'ipv4' ? 32 : 128]));
  if (own.check(bare, familyOf(bare))) return 'an address of this host';
  if (subnets(host.dockerSubnets).check(bare, familyOf(bare))) return 'an address of a Docker network of this host';
  if (kind === 'private' && rules.denyPrivate) return 'a private address (denyPrivateDestinations is on)';
  return null;
}

export interface DestinationPolicy {
  /**
   * Every address `host` resolves to (one lookup), each checked for `port`: connect to these and nothing else.
   * A ForbiddenDestinationError when any is refused; an UnresolvedDestinationError when it does not resolve.
   */
  resolve(host: string, port: number): Promise<string[]>;
  /**
   * A destination given by a client (naming its `field`) or to a component that resolves it itself (the
   * Docker engine): refused → ForbiddenDestinationError. A name that does not resolve now passes: nothing can
   * be reached through it, and the connection is checked again when made.
   */
  vet(host: string, port: number, field?: string): Promise<void>;
}

export interface PolicyOptions {
  /** Read at every check: a settings change applies to the next connection. */
  rules(): Promise<DestinationRules>;
  host?: () => HostNetworks;
  /** Every address of a name; dns.lookup (the system's resolver, /etc/hosts included) by default. */
  lookup?: (host: string) => Promise<string[]>;
  lookupTimeoutMs?: number;
}

const systemLookup = async (host: string) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** `host:port` as people write it. */
export const destinationText = (host: string, port: number) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`);

/** A URL's host without the brackets of an IPv6 literal. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

export function createDestinationPolicy(options: PolicyOptions): DestinationPolicy {
  const host = options.host ?? currentHostNetworks;
  const lookup = options.lookup ?? systemLookup;
  const timeoutMs = options.lookupTimeoutMs ?? 10_000;

  async function addressesOf(name: string): Promise<string[]> {
    if (isIP(name)) return [name];
    let timer: NodeJS.Timeout | undefined;
    try {
      const found = await Promise.race([
        lookup(name),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs))),
      ]);
      if (found.length === 0) throw new Error('no address');
      return found;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new UnresolvedDestinationError(`could not resolve ${name}: ${typeof code === 'string' ? code : (error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async function resolve(name: string, port: number): Promise<string[]> {
    const [addresses, rules] = await Promise.all([addressesOf(name), options.rules()]);
    const allowed = rules.allowed.map(parseDestination).filter((e): e is AllowedDestination => e !== null);
    const networks = host();
    for (const address of addresses) {
      const refusal = refusalOf(address, port, { allowed, denyPrivate: rules.denyPrivate }, networks);
      if (!refusal) continue;
      const what = isIP(name) ? `${destinationText(name, port)} is ${refusal}` : `${destinationText(name, port)} resolves to ${refusal}`;
      throw new ForbiddenDestinationError(`${what}: outbound connections there are refused unless the installation setting allowedDestinations lists it`);
    }
    return addresses;
  }

  return {
    resolve,
    async vet(name, port, field) {
      try {
        await resolve(name, port);
      } catch (error) {
        if (error instanceof ForbiddenDestinationError) throw field ? error.at(field) : error;
        if (!(error instanceof UnresolvedDestinationError)) throw error;
      }
    },
  };
}
