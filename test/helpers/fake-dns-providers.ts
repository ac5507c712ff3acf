import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * Local servers that follow Cloudflare's API v4 and DigitalOcean's API v2 as published, for the calls
 * Slipway makes: bearer auth, paging, the name and type filters, validation, and each one's error bodies.
 */
export interface FakeRecord {
  id: string;
  zone: string;
  /** Fully qualified, lowercase. */
  name: string;
  type: string;
  content: string;
}

export interface FakeDnsProvider {
  /** The API base to give Slipway (`SLIPWAY_CLOUDFLARE_API_URL` / `SLIPWAY_DIGITALOCEAN_API_URL`). */
  apiUrl: string;
  token: string;
  zones: string[];
  records: FakeRecord[];
  requests: { method: string; path: string; authorization: string | undefined }[];
  /** When set, every write is refused with this status and message (the provider's own error body). */
  refuseWrites: { status: number; message: string } | null;
  close(): Promise<void>;
}

type Handler = (fake: FakeDnsProvider, req: IncomingMessage, url: URL, body: unknown) => { status: number; json: unknown };

async function serve(token: string, zones: string[], apiPath: string, handle: Handler, unauthorized: { status: number; json: unknown }): Promise<FakeDnsProvider> {
  const fake: FakeDnsProvider = { apiUrl: '', token, zones, records: [], requests: [], refuseWrites: null, close: async () => undefined };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      fake.requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, authorization: req.headers.authorization });
      let answer: { status: number; json: unknown };
      if (req.headers.authorization !== `Bearer ${token}`) answer = unauthorized;
      else {
        let body: unknown = null;
        try {
          body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
        } catch {
          body = null;
        }
        answer = handle(fake, req, url, body);
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${apiPath}`;
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}

const validContent = (type: string, content: string) => (type === 'A' ? isIPv4(content) : type === 'AAAA' ? isIPv6(content) : true);
const inZone = (name: string, zone: string) => name === zone || name.endsWith(`.${zone}`);
let nextId = 1;

// ---- Cloudflare API v4 ----

const cf = (status: number, result: unknown, resultInfo?: unknown) => ({
  status,
  json: { success: status < 400, errors: [], messages: [], result, ...(resultInfo ? { result_info: resultInfo } : {}) },
});
const cfError = (status: number, code: number, message: string) => ({ status, json: { success: false, errors: [{ code, message }], messages: [], result: null } });
const cfZoneId = (zone: string) => Buffer.from(zone).toString('hex').padEnd(32, '0').slice(0, 32);
const cfRecord = (r: FakeRecord) => ({ id: r.id, zone_id: cfZoneId(r.zone), zone_name: r.zone, name: r.name, type: r.type, content: r.content, proxiable: true, proxied: false, ttl: 1 });

function page<T>(items: T[], url: URL, maxPerPage: number) {
  const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 20), maxPerPage);
  const pageNo = Math.max(1, Number(url.searchParams.get('page') ?? 1));
  return { items: items.slice((pageNo - 1) * perPage, pageNo * perPage), pageNo, perPage, totalPages: Math.max(1, Math.ceil(items.length / perPage)) };
}

/** Cloudflare, with at most `maxPerPage` items a page (the real API allows 50 zones). */
export function startFakeCloudflare(zones: string[], options: { token?: string; maxPerPage?: number } = {}) {
  const max = options.maxPerPage ?? 2;
  return serve(
    options.token ?? 'cf-token-test',
    zones,
    '/client/v4',
    (fake, req, url, body) => {
      const path = url.pathname.replace(/^\/client\/v4/, '');
      if (req.method === 'GET' && path === '/zones') {
        const p = page(fake.zones, url, max);
        return cf(200, p.items.map((name) => ({ id: cfZoneId(name), name, status: 'active' })), { page: p.pageNo, per_page: p.perPage, count: p.items.length, total_count: fake.zones.length, total_pages: p.totalPages });
      }
      const m = /^\/zones\/([0-9a-f]{32})\/dns_records(?:\/([^/]+))?$/.exec(path);
      const zone = m ? fake.zones.find((z) => cfZoneId(z) === m[1]) : undefined;
      if (!m || !zone) return cfError(400, 7003, `Could not route to ${path}, perhaps your object identifier is invalid?`);
      if (req.method === 'GET' && !m[2]) {
        const name = url.searchParams.get('name')?.toLowerCase();
        const type = url.searchParams.get('type');
        const found = fake.records.filter((r) => r.zone === zone && (!name || r.name === name) && (!type || r.type === type));
        const p = page(found, url, max);
        return cf(200, p.items.map(cfRecord), { page: p.pageNo, per_page: p.perPage, count: p.items.length, total_count: found.length, total_pages: p.totalPages });
      }
      if (fake.refuseWrites) return cfError(fake.refuseWrites.status, 1000, fake.refuseWrites.message);
      const input = (body ?? {}) as { type?: string; name?: string; content?: string };
      const type = input.type ?? '';
      const name = (input.name ?? '').toLowerCase();
      if (!validContent(type, input.content ?? '')) return cfError(400, 9005, `Content for ${type} record is invalid. Must be a valid ${type === 'A' ? 'IPv4' : 'IPv6'} address`);
      if (!inZone(name, zone)) return cfError(400, 1004, 'DNS Validation Error');
      if (req.method === 'POST' && !m[2]) {
        const record = { id: `cf${nextId++}`, zone, name, type, content: input.content! };
        fake.records.push(record);
        return cf(200, cfRecord(record));
      }
      const record = fake.records.find((r) => r.id === m[2] && r.zone === zone);
      if (!record) return cfError(404, 81044, 'Record does not exist.');
      if (req.method === 'PATCH' || req.method === 'PUT') {
        Object.assign(record, { name, type, content: input.content! });
        return cf(200, cfRecord(record));
      }
      return cfError(405, 10405, 'Method not allowed');
    },
    cfError(403, 10000, 'Authentication error'),
  );
}

// ---- DigitalOcean API v2 ----

const doError = (status: number, id: string, message: string) => ({ status, json: { id, message } });
const relative = (name: string, zone: string) => (name === zone ? '@' : name.slice(0, name.length - zone.length - 1));
const doRecord = (r: FakeRecord) => ({ id: Number(r.id.slice(2)), type: r.type, name: relative(r.name, r.zone), data: r.content, priority: null, port: null, ttl: 300, weight: null, flags: null, tag: null });

function doPage<T>(items: T[], url: URL, max: number, base: string) {
  const p = page(items, url, max);
  const pages: Record<string, string> = {};
  if (p.pageNo < p.totalPages) {
    pages.next = `${base}?page=${p.pageNo + 1}&per_page=${p.perPage}`;
    pages.last = `${base}?page=${p.totalPages}&per_page=${p.perPage}`;
  }
  return { items: p.items, links: { pages }, meta: { total: items.length } };
}

/** DigitalOcean, with at most `maxPerPage` items a page (the real API allows 200). */
export function startFakeDigitalOcean(zones: string[], options: { token?: string; maxPerPage?: number } = {}) {
  const max = options.maxPerPage ?? 2;
  return serve(
    options.token ?? 'do-token-test',
    zones,
    '',
    (fake, req, url, body) => {
      const base = `https://api.digitalocean.com${url.pathname}`;
      if (req.method === 'GET' && url.pathname === '/v2/domains') {
        const p = doPage(fake.zones, url, max, base);
        return { status: 200, json: { domains: p.items.map((name) => ({ name, ttl: 1800, zone_file: '' })), links: p.links, meta: p.meta } };
      }
      const m = /^\/v2\/domains\/([^/]+)\/records(?:\/(\d+))?$/.exec(url.pathname);
      const zone = m ? fake.zones.find((z) => z === m[1]) : undefined;
      if (!m || !zone) return doError(404, 'not_found', 'The resource you were accessing could not be found.');
      if (req.method === 'GET' && !m[2]) {
        // `name` filters by the fully qualified name.
        const name = url.searchParams.get('name')?.toLowerCase();
        const type = url.searchParams.get('type');
        const found = fake.records.filter((r) => r.zone === zone && (!name || r.name === name) && (!type || r.type === type));
        const p = doPage(found, url, max, base);
        return { status: 200, json: { domain_records: p.items.map(doRecord), links: p.links, meta: p.meta } };
      }
      if (fake.refuseWrites) return doError(fake.refuseWrites.status, 'forbidden', fake.refuseWrites.message);
      const input = (body ?? {}) as { type?: string; name?: string; data?: string };
      const type = input.type ?? '';
      if (!validContent(type, input.data ?? '')) return doError(422, 'unprocessable_entity', `IP address did not match ${type === 'A' ? 'IPv4' : 'IPv6'} format (e.g. ${type === 'A' ? '127.0.0.1' : '2001:db8::1'}).`);
      const label = (input.name ?? '').toLowerCase();
      if (label.endsWith('.') || label === '') return doError(422, 'unprocessable_entity', 'Name is invalid.');
      const name = label === '@' ? zone : `${label}.${zone}`;
      if (req.method === 'POST' && !m[2]) {
        const record = { id: `do${nextId++}`, zone, name, type, content: input.data! };
        fake.records.push(record);
        return { status: 201, json: { domain_record: doRecord(record) } };
      }
      const record = fake.records.find((r) => r.id === `do${m[2]}` && r.zone === zone);
      if (!record) return doError(404, 'not_found', 'The resource you were accessing could not be found.');
      if (req.method === 'PUT' || req.method === 'PATCH') {
        Object.assign(record, { name, type, content: input.data! });
        return { status: 200, json: { domain_record: doRecord(record) } };
      }
      return doError(405, 'method_not_allowed', 'Method not allowed');
    },
    doError(401, 'Unauthorized', 'Unable to authenticate you'),
  );
}
