import { z } from 'zod';
import { appendPath, pathSegment } from '../../outbound/base-url.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { callJson, expectShape, type DnsProviderClient, type JsonCall } from './provider.js';
import { normalName } from './zones.js';

export interface PowerDnsSettings {
  /** The webserver's URL; a trailing slash or `/api/v1` is fine. */
  baseUrl: string;
  apiKey: string;
  serverId: string;
}

const zones = z.array(z.object({ id: z.string(), name: z.string() }));
const zoneDetail = z.object({
  rrsets: z.array(z.object({ name: z.string(), type: z.string(), records: z.array(z.object({ content: z.string(), disabled: z.boolean().optional() })) })),
});

/** PowerDNS' error body: `{ error, errors? }`. */
function errorOf(body: unknown): string | null {
  const parsed = z.object({ error: z.string().min(1) }).safeParse(body);
  return parsed.success ? parsed.data.error : null;
}

const TTL = 300;

/** The server's root URL from what a user may paste: with or without a trailing slash or `/api/v1`. */
export const powerDnsRoot = (baseUrl: string) => baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '').replace(/\/+$/, '');

/** The PowerDNS Authoritative HTTP API (`api=yes`), with its `X-API-Key`. */
export function powerDnsClient(settings: PowerDnsSettings, options: { timeoutMs?: number; outbound: DestinationPolicy }): DnsProviderClient {
  const server = appendPath(powerDnsRoot(settings.baseUrl), `api/v1/servers/${pathSegment(settings.serverId)}`);
  const headers = { 'x-api-key': settings.apiKey };
  const call = (path: string, init: Omit<JsonCall, 'headers' | 'outbound'> = {}) =>
    callJson(appendPath(server, path), { timeoutMs: options.timeoutMs, outbound: options.outbound, ...init, headers }, errorOf);
  // Zone ids come from PowerDNS already made URL-safe (it writes `/` as `=2F`); encoding keeps them one segment.
  const zonePath = (zoneId: string) => `zones/${pathSegment(zoneId)}`;
  // Records have no ids: an rrset holds every address of a name, and REPLACE writes it whole, so creating and
  // updating are the same change, and PowerDNS answers it with 204.
  const replace = (zoneId: string, fqdn: string, type: string, content: string) =>
    call(zonePath(zoneId), {
      method: 'PATCH',
      body: { rrsets: [{ name: `${normalName(fqdn)}.`, type, ttl: TTL, changetype: 'REPLACE', records: [{ content, disabled: false }] }] },
    });
  return {
    async listZones() {
      return expectShape(zones, await call('zones'), 'the zone list').map((z) => ({ id: z.id, name: normalName(z.name) }));
    },
    async findRecords(zone, fqdn, type) {
      const name = `${normalName(fqdn)}.`;
      // PowerDNS 4.7 and later send only this rrset; older servers ignore the filter and send the whole zone.
      const query = new URLSearchParams({ rrset_name: name, rrset_type: type });
      const detail = expectShape(zoneDetail, await call(`${zonePath(zone.id)}?${query}`), 'the zone');
      const rrset = detail.rrsets.find((r) => r.type === type && r.name.toLowerCase() === name);
      return (rrset?.records ?? []).filter((r) => !r.disabled).map((r) => ({ id: r.content, content: r.content }));
    },
    async createRecord(zone, fqdn, type, content) {
      await replace(zone.id, fqdn, type, content);
    },
    async updateRecord(zone, _record, fqdn, type, content) {
      await replace(zone.id, fqdn, type, content);
    },
  };
}
