import { isIP } from 'node:net';
import type { DnsProviderClient, DnsRecordType } from './provider.js';
import { hostLabel, normalName, zoneForHostname } from './zones.js';

export class NoMatchingZoneError extends Error {
  constructor(
    readonly hostname: string,
    /** The names of the zones that were looked at, sorted. */
    readonly zones: string[],
  ) {
    super(`no zone contains ${hostname}; zones looked at: ${zones.length ? zones.join(', ') : 'none'}`);
    this.name = 'NoMatchingZoneError';
  }
}

export interface AppliedDnsRecord {
  action: 'created' | 'updated' | 'unchanged';
  hostname: string;
  recordType: DnsRecordType;
  /** The hostname relative to its zone, `@` for the apex. */
  host: string;
  zone: string;
  targetIp: string;
}

/** Providers may store an IPv6 address in another spelling (`2001:DB8:0::1` as `2001:db8::1`). */
function sameAddress(a: string, b: string): boolean {
  if (a === b) return true;
  if (isIP(a) !== 6 || isIP(b) !== 6) return false;
  const canonical = (ip: string) => new URL(`http://[${ip}]/`).hostname;
  return canonical(a) === canonical(b);
}

/** Makes the hostname's address record point at `targetIp`: created, updated when it points elsewhere, else left. */
export async function applyDnsRecord(client: DnsProviderClient, hostname: string, targetIp: string): Promise<AppliedDnsRecord> {
  const fqdn = normalName(hostname);
  const recordType: DnsRecordType = isIP(targetIp) === 6 ? 'AAAA' : 'A';
  const zones = await client.listZones();
  const zone = zoneForHostname(fqdn, zones);
  if (!zone) throw new NoMatchingZoneError(fqdn, zones.map((z) => z.name).sort());
  const applied = { hostname: fqdn, recordType, host: hostLabel(fqdn, zone.name), zone: zone.name, targetIp };
  const [first, ...others] = await client.findRecords(zone, fqdn, recordType);
  if (!first) {
    await client.createRecord(zone, fqdn, recordType, targetIp);
    return { action: 'created', ...applied };
  }
  if ([first, ...others].some((r) => sameAddress(r.content, targetIp))) return { action: 'unchanged', ...applied };
  await client.updateRecord(zone, first, fqdn, recordType, targetIp);
  return { action: 'updated', ...applied };
}
