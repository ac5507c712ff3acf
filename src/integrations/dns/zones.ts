import type { DnsZone } from './provider.js';

/** Lowercase, without the trailing dot of a fully qualified name. */
export const normalName = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** The zone whose name is the longest suffix of the hostname on a label boundary, or null. */
export function zoneForHostname<Z extends Pick<DnsZone, 'name'>>(hostname: string, zones: readonly Z[]): Z | null {
  const host = normalName(hostname);
  let best: Z | null = null;
  let bestLength = -1;
  for (const zone of zones) {
    const name = normalName(zone.name);
    if (name === '' || name.length <= bestLength) continue;
    if (host === name || host.endsWith(`.${name}`)) {
      best = zone;
      bestLength = name.length;
    }
  }
  return best;
}

/** The part of the hostname before the zone; `@` for the zone's apex. */
export function hostLabel(hostname: string, zone: string): string {
  const host = normalName(hostname);
  const name = normalName(zone);
  if (host === name) return '@';
  if (!host.endsWith(`.${name}`)) throw new Error(`${hostname} is not in the zone ${zone}`);
  return host.slice(0, host.length - name.length - 1);
}
