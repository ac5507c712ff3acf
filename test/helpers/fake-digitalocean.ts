import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIPv4, isIPv6, type AddressInfo } from 'node:net';

/**
 * A local server that follows DigitalOcean's API v2 as published, for the calls Slipway makes: bearer tokens
 * (401 `{ id, message }` when wrong), domains paged by `page`/`per_page` with `links.pages.next` pointing at
 * https://api.digitalocean.com as the real API's links do, domain records filtered by fully qualified `name`
 * and `type`, record names written relative to the domain (`@` for the apex, a trailing dot for a fully
 * qualified one), and 422 for data that does not fit the type. Pages hold at most `perPage` items (2 by default).
 */
export interface DigitalOceanRecord {
  id: number;
  domain: string;
  /** Fully qualified, lowercase. */
  name: string;
  type: string;
  data: string;
  ttl: number;
}

export interface DigitalOceanRequest {
  method: string;
  /** Path with its query string. */
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeDigitalOcean {
  /** The API base, like https://api.digitalocean.com (the paths start with /v2). */
  apiUrl: string;
  token: string;
  domains: string[];
  records: DigitalOceanRecord[];
  requests: DigitalOceanRequest[];
  /** When set, every write is refused with this status and message. */
  refuseWrites: { status: number; message: string } | null;
  /** When true, requests are read but never answered. */
  stall: boolean;
  close(): Promise<void>;
}

type Answer = { status: number; json: unknown };

const PUBLIC_API = 'https://api.digitalocean.com';
const error = (status: number, id: string, message: string): Answer => ({ status, json: { id, message } });
const notFound = () => error(404, 'not_found', 'The resource you were accessing could not be found.');
const unprocessable = (message: string) => error(422, 'unprocessable_entity', message);

function paged<T>(items: T[], url: URL, maxPerPage: number) {
  const perPage = Math.max(1, Math.min(Number(url.searchParams.get('per_page') ?? 20) || 20, maxPerPage));
  const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number) => {
    const query = new URLSearchParams(url.searchParams);
    query.set('page', String(n));
    query.set('per_page', String(perPage));
    return `${PUBLIC_API}${url.pathname}?${query}`;
  };
  const pages: Record<string, string> = {};
  if (page > 1) Object.assign(pages, { first: link(1), prev: link(page - 1) });
  if (page < last) Object.assign(pages, { next: link(page + 1), last: link(last) });
  return { slice: items.slice((page - 1) * perPage, page * perPage), links: { pages }, meta: { total: items.length } };
}

/** A record name as DigitalOcean reads it: `@` is the apex, a trailing dot makes it fully qualified, else it is relative. */
function qualified(name: string, domain: string): string | null {
  const lower = name.toLowerCase();
  if (lower === '@') return domain;
  if (!lower.endsWith('.')) return `${lower}.${domain}`;
  const absolute = lower.slice(0, -1);
  return absolute === domain || absolute.endsWith(`.${domain}`) ? absolute : null;
}

const relative = (r: DigitalOceanRecord) => (r.name === r.domain ? '@' : r.name.slice(0, r.name.length - r.domain.length - 1));
const presented = (r: DigitalOceanRecord) => ({ id: r.id, type: r.type, name: relative(r), data: r.data, priority: null, port: null, ttl: r.ttl, weight: null, flags: null, tag: null });

function invalidData(type: string, data: string): Answer | null {
  if (type === 'A' && !isIPv4(data)) return unprocessable('IP address did not match IPv4 format (e.g. 127.0.0.1).');
  if (type === 'AAAA' && !isIPv6(data)) return unprocessable('IP address did not match IPv6 format (e.g. 2001:db8::1).');
  return null;
}

let nextId = 3352896;

function handle(fake: FakeDigitalOcean, method: string, url: URL, body: unknown, maxPerPage: number): Answer {
  if (method === 'GET' && url.pathname === '/v2/domains') {
    const { slice, links, meta } = paged(fake.domains, url, maxPerPage);
    return { status: 200, json: { domains: slice.map((name) => ({ name, ttl: 1800, zone_file: '' })), links, meta } };
  }
  const match = /^\/v2\/domains\/([^/]+)\/records(?:\/([^/]+))?$/.exec(url.pathname);
  const domain = match ? fake.domains.find((d) => d === decodeURIComponent(match[1]!).toLowerCase()) : undefined;
  if (!match || !domain) return notFound();
  const recordId = match[2];

  if (method === 'GET' && !recordId) {
    const name = url.searchParams.get('name')?.toLowerCase();
    const type = url.searchParams.get('type');
    const found = fake.records.filter((r) => r.domain === domain && (!name || r.name === name) && (!type || r.type === type));
    const { slice, links, meta } = paged(found, url, 200);
    return { status: 200, json: { domain_records: slice.map(presented), links, meta } };
  }
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return error(405, 'method_not_allowed', 'Method Not Allowed');
  if (fake.refuseWrites) return error(fake.refuseWrites.status, 'forbidden', fake.refuseWrites.message);
  if (typeof body !== 'object' || body === null) return error(400, 'bad_request', 'Request body is required.');
  const input = body as { type?: unknown; name?: unknown; data?: unknown; ttl?: unknown };

  if (method === 'POST' && !recordId) {
    if (typeof input.type !== 'string' || input.type === '') return unprocessable("Type can't be blank");
    if (typeof input.name !== 'string' || input.name === '') return unprocessable("Name can't be blank");
    if (typeof input.data !== 'string' || input.data === '') return unprocessable("Data can't be blank");
    const invalid = invalidData(input.type, input.data);
    if (invalid) return invalid;
    const name = qualified(input.name, domain);
    if (!name) return unprocessable('Name is not a valid hostname for this domain.');
    const record: DigitalOceanRecord = { id: nextId++, domain, name, type: input.type, data: input.data, ttl: typeof input.ttl === 'number' ? input.ttl : 1800 };
    fake.records.push(record);
    return { status: 201, json: { domain_record: presented(record) } };
  }

  const record = recordId ? fake.records.find((r) => String(r.id) === recordId && r.domain === domain) : undefined;
  if (!record) return notFound();
  // Updating needs the type, as the API reference says.
  if (typeof input.type !== 'string' || input.type === '') return unprocessable("Type can't be blank");
  const data = typeof input.data === 'string' ? input.data : record.data;
  const invalid = invalidData(input.type, data);
  if (invalid) return invalid;
  const name = typeof input.name === 'string' ? qualified(input.name, domain) : record.name;
  if (!name) return unprocessable('Name is not a valid hostname for this domain.');
  Object.assign(record, { type: input.type, name, data, ...(typeof input.ttl === 'number' ? { ttl: input.ttl } : {}) });
  return { status: 200, json: { domain_record: presented(record) } };
}

/** Starts the fake with these domains; `perPage` caps DigitalOcean's `per_page` (200 on the real API). */
export async function startFakeDigitalOcean(domains: string[], options: { token?: string; perPage?: number } = {}): Promise<FakeDigitalOcean> {
  const maxPerPage = options.perPage ?? 2;
  const fake: FakeDigitalOcean = {
    apiUrl: '',
    token: options.token ?? `dop_v1_${randomBytes(32).toString('hex')}`,
    domains: domains.map((d) => d.toLowerCase()),
    records: [],
    requests: [],
    refuseWrites: null,
    stall: false,
    close: async () => undefined,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      let malformed = false;
      try {
        body = raw === '' ? null : JSON.parse(raw);
      } catch {
        malformed = true;
      }
      const method = req.method ?? 'GET';
      fake.requests.push({ method, path: url.pathname + url.search, authorization: req.headers.authorization, body });
      if (fake.stall) return;
      const answer = ((): Answer => {
        if (req.headers.authorization !== `Bearer ${fake.token}`) return error(401, 'unauthorized', 'Unable to authenticate you');
        if (raw !== '' && !(req.headers['content-type'] ?? '').startsWith('application/json')) {
          return error(400, 'bad_request', 'Content-Type must be application/json');
        }
        if (malformed) return error(400, 'bad_request', 'unexpected end of JSON input');
        return handle(fake, method, url, body, maxPerPage);
      })();
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return fake;
}
