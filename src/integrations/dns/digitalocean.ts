import { z } from 'zod';
import { appendPath, pathSegment } from '../../outbound/base-url.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { callJson, expectShape, type DnsProviderClient, type JsonCall } from './provider.js';
import { hostLabel } from './zones.js';

export const DIGITALOCEAN_API_URL = 'https://api.digitalocean.com';

const domainsPage = z.object({
  domains: z.array(z.object({ name: z.string() })),
  links: z.object({ pages: z.object({ next: z.string() }).partial().nullish() }).partial().nullish(),
});
const recordsPage = z.object({ domain_records: z.array(z.object({ id: z.union([z.number(), z.string()]), data: z.string() })) });

/** DigitalOcean's error body: `{ id, message }`. */
function errorOf(body: unknown): string | null {
  const parsed = z.object({ message: z.string().min(1) }).safeParse(body);
  return parsed.success ? parsed.data.message : null;
}

// DigitalOcean allows up to 200 items a page.
const PER_PAGE = 200;
const MAX_PAGES = 1000;

/** The page `links.pages.next` points to. Only its number is used: the token goes to the configured API alone. */
function nextPage(next: string | undefined, current: number): number | null {
  if (!next) return null;
  let page = current + 1;
  try {
    page = Number(new URL(next, DIGITALOCEAN_API_URL).searchParams.get('page') ?? page);
  } catch {
    // An unreadable link still says there is a next page.
  }
  return Number.isInteger(page) && page > current ? page : null;
}

/** DigitalOcean API v2 with a personal access token that may read and write domains. Its "domains" are the zones. */
export function digitalOceanClient(apiToken: string, options: { apiUrl?: string; timeoutMs?: number; outbound: DestinationPolicy }): DnsProviderClient {
  const base = (options.apiUrl ?? DIGITALOCEAN_API_URL).replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${apiToken}` };
  const call = (path: string, init: Omit<JsonCall, 'headers' | 'outbound'> = {}) =>
    callJson(appendPath(base, path), { timeoutMs: options.timeoutMs, outbound: options.outbound, ...init, headers }, errorOf);
  const records = (zoneId: string) => `/v2/domains/${pathSegment(zoneId)}/records`;
  return {
    async listZones() {
      const names: string[] = [];
      let page: number | null = 1;
      for (let fetched = 0; page !== null && fetched < MAX_PAGES; fetched++) {
        const body: z.infer<typeof domainsPage> = expectShape(domainsPage, await call(`/v2/domains?page=${page}&per_page=${PER_PAGE}`), 'the domain list');
        names.push(...body.domains.map((d) => d.name.toLowerCase()));
        page = body.domains.length === 0 ? null : nextPage(body.links?.pages?.next, page);
      }
      return names.map((name) => ({ id: name, name }));
    },
    async findRecords(zone, fqdn, type) {
      // `name` filters on the fully qualified name, the apex included.
      const query = new URLSearchParams({ type, name: fqdn, per_page: String(PER_PAGE) });
      const body = expectShape(recordsPage, await call(`${records(zone.id)}?${query}`), 'the record list');
      return body.domain_records.map((r) => ({ id: String(r.id), content: r.data }));
    },
    async createRecord(zone, fqdn, type, content) {
      // Records are written with the name relative to the domain, `@` for the apex.
      await call(records(zone.id), { method: 'POST', body: { type, name: hostLabel(fqdn, zone.name), data: content, ttl: 300 } });
    },
    async updateRecord(zone, record, fqdn, type, content) {
      await call(`${records(zone.id)}/${pathSegment(record.id)}`, { method: 'PUT', body: { type, name: hostLabel(fqdn, zone.name), data: content } });
    },
  };
}
