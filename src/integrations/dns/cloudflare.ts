import { z } from 'zod';
import { appendPath, pathSegment } from '../../outbound/base-url.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { callJson, DnsProviderError, expectShape, type DnsProviderClient, type JsonCall } from './provider.js';

export const CLOUDFLARE_API_URL = 'https://api.cloudflare.com/client/v4';

const messages = z.array(z.object({ message: z.string(), error_chain: z.array(z.object({ message: z.string() })).optional() }));
const envelope = z.object({
  success: z.boolean(),
  errors: messages.optional(),
  result: z.unknown(),
  result_info: z.object({ total_pages: z.number() }).partial().nullish(),
});
const zones = z.array(z.object({ id: z.string(), name: z.string() }));
const records = z.array(z.object({ id: z.string(), content: z.string() }));

/** Cloudflare's `errors: [{ code, message, error_chain? }]`, whose chain says what the top message only sums up. */
function errorOf(body: unknown): string | null {
  const parsed = z.object({ errors: messages }).safeParse(body);
  if (!parsed.success || parsed.data.errors.length === 0) return null;
  return parsed.data.errors
    .map((e) => (e.error_chain?.length ? `${e.message}: ${e.error_chain.map((c) => c.message).join('; ')}` : e.message))
    .join('; ');
}

// Cloudflare allows up to 50 zones a page.
const ZONES_PER_PAGE = 50;
const MAX_PAGES = 1000;

/** Cloudflare API v4 with an API token that may read zones and edit DNS. */
export function cloudflareClient(apiToken: string, options: { apiUrl?: string; timeoutMs?: number; outbound: DestinationPolicy }): DnsProviderClient {
  const base = (options.apiUrl ?? CLOUDFLARE_API_URL).replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${apiToken}` };
  const call = async (path: string, what: string, init: Omit<JsonCall, 'headers' | 'outbound'> = {}) => {
    const body = expectShape(envelope, await callJson(appendPath(base, path), { timeoutMs: options.timeoutMs, outbound: options.outbound, ...init, headers }, errorOf), what);
    // The envelope's own verdict counts even when the status was 2xx.
    if (!body.success) throw new DnsProviderError(errorOf(body) ?? `Cloudflare refused ${what}`, null);
    return body;
  };
  return {
    async listZones() {
      const all: z.infer<typeof zones> = [];
      for (let page = 1; page <= MAX_PAGES; page++) {
        const body = await call(`/zones?page=${page}&per_page=${ZONES_PER_PAGE}`, 'the zone list');
        const result = expectShape(zones, body.result, 'the zone list');
        all.push(...result);
        if (result.length === 0 || page >= (body.result_info?.total_pages ?? 1)) break;
      }
      return all.map((zone) => ({ id: zone.id, name: zone.name.toLowerCase() }));
    },
    async findRecords(zone, fqdn, type) {
      const query = new URLSearchParams({ type, name: fqdn, per_page: '100' });
      const body = await call(`/zones/${pathSegment(zone.id)}/dns_records?${query}`, 'the record list');
      return expectShape(records, body.result, 'the record list').map((r) => ({ id: r.id, content: r.content }));
    },
    async createRecord(zone, fqdn, type, content) {
      // ttl 1 is Cloudflare's "automatic". Not proxied: the name must reach this server, whose proxy answers the ACME challenge.
      await call(`/zones/${pathSegment(zone.id)}/dns_records`, 'the new record', { method: 'POST', body: { type, name: fqdn, content, ttl: 1, proxied: false } });
    },
    async updateRecord(zone, record, fqdn, type, content) {
      await call(`/zones/${pathSegment(zone.id)}/dns_records/${pathSegment(record.id)}`, 'the record change', { method: 'PATCH', body: { type, name: fqdn, content } });
    },
  };
}
