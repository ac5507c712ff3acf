import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIPv4, isIPv6, type AddressInfo } from 'node:net';

/**
 * A local server that follows Cloudflare's API v4 as published, for the calls Slipway makes: bearer tokens
 * (a malformed header is 400, a wrong token 401), zones paged by `page`/`per_page` with `result_info`, DNS
 * records filtered by exact `name` and `type`, content validation, and the `{ success, errors, messages,
 * result }` envelope of every answer. Pages hold at most `zonesPerPage` zones (2 by default) so that tests
 * cross pages with a few zones.
 */
export interface CloudflareRecord {
  id: string;
  zoneId: string;
  /** Fully qualified, lowercase. */
  name: string;
  type: string;
  content: string;
  ttl: number;
  proxied: boolean;
}

export interface CloudflareRequest {
  method: string;
  /** Path with its query string. */
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeCloudflare {
  /** The API base, like https://api.cloudflare.com/client/v4. */
  apiUrl: string;
  /** A token that works; 40 characters, as Cloudflare's are. */
  token: string;
  zones: { id: string; name: string }[];
  records: CloudflareRecord[];
  requests: CloudflareRequest[];
  /** When set, every write is refused with this status and message. */
  refuseWrites: { status: number; message: string } | null;
  /** When true, requests are read but never answered. */
  stall: boolean;
  close(): Promise<void>;
}

type Answer = { status: number; json: unknown };

const hexId = () => randomBytes(16).toString('hex');
const ok = (result: unknown, resultInfo?: unknown, status = 200): Answer => ({
  status,
  json: { success: true, errors: [], messages: [], result, ...(resultInfo === undefined ? {} : { result_info: resultInfo }) },
});
const failure = (status: number, errors: { code: number; message: string; error_chain?: { code: number; message: string }[] }[]): Answer => ({
  status,
  json: { success: false, errors, messages: [], result: null },
});
const notFound = (path: string) => failure(404, [{ code: 7003, message: `Could not route to ${path}, perhaps your object identifier is invalid?` }]);

function paged<T>(items: T[], url: URL, maxPerPage: number) {
  const perPage = Math.max(1, Math.min(Number(url.searchParams.get('per_page') ?? 20) || 20, maxPerPage));
  const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  return { slice, info: { page, per_page: perPage, count: slice.length, total_count: items.length, total_pages: Math.max(1, Math.ceil(items.length / perPage)) } };
}

/** A record name as Cloudflare reads it: `@` is the apex, a name outside the zone is relative to it. */
function qualified(name: string, zone: string): string {
  const lower = name.toLowerCase().replace(/\.$/, '');
  if (lower === '@' || lower === zone) return zone;
  return lower.endsWith(`.${zone}`) ? lower : `${lower}.${zone}`;
}

function invalidContent(type: string, content: string): Answer | null {
  if (type === 'A' && !isIPv4(content)) return failure(400, [{ code: 9005, message: 'Content for A record must be a valid IPv4 address.' }]);
  if (type === 'AAAA' && !isIPv6(content)) return failure(400, [{ code: 9006, message: 'Content for AAAA record must be a valid IPv6 address.' }]);
  return null;
}

const presented = (r: CloudflareRecord, zoneName: string) => ({
  id: r.id,
  zone_id: r.zoneId,
  zone_name: zoneName,
  name: r.name,
  type: r.type,
  content: r.content,
  proxiable: true,
  proxied: r.proxied,
  ttl: r.ttl,
  locked: false,
  meta: { auto_added: false, managed_by_apps: false, managed_by_argo_tunnel: false },
  comment: null,
  tags: [],
  created_on: '2026-01-01T00:00:00Z',
  modified_on: '2026-01-01T00:00:00Z',
});

function handle(fake: FakeCloudflare, method: string, url: URL, path: string, body: unknown, maxPerPage: number): Answer {
  if (method === 'GET' && path === '/zones') {
    const { slice, info } = paged(fake.zones, url, maxPerPage);
    return ok(slice.map((z) => ({ id: z.id, name: z.name, status: 'active', paused: false, type: 'full' })), info);
  }
  const match = /^\/zones\/([^/]+)\/dns_records(?:\/([^/]+))?$/.exec(path);
  const zone = match ? fake.zones.find((z) => z.id === match[1]) : undefined;
  if (!match || !zone) return notFound(path);
  const recordId = match[2];

  if (method === 'GET' && !recordId) {
    const name = url.searchParams.get('name')?.toLowerCase();
    const type = url.searchParams.get('type');
    const found = fake.records.filter((r) => r.zoneId === zone.id && (!name || r.name === name) && (!type || r.type === type));
    // Records page at up to 5,000 (default 100); only zones are made to page small.
    const { slice, info } = paged(found, url, 5000);
    return ok(slice.map((r) => presented(r, zone.name)), info);
  }
  if (method !== 'POST' && method !== 'PATCH' && method !== 'PUT') return failure(405, [{ code: 10405, message: 'Method not allowed' }]);
  if (fake.refuseWrites) return failure(fake.refuseWrites.status, [{ code: 10000, message: fake.refuseWrites.message }]);
  if (typeof body !== 'object' || body === null) return failure(400, [{ code: 9207, message: 'Request body is invalid.' }]);
  const input = body as { type?: unknown; name?: unknown; content?: unknown; ttl?: unknown; proxied?: unknown };

  if (method === 'POST' && !recordId) {
    if (typeof input.type !== 'string' || typeof input.name !== 'string' || typeof input.content !== 'string') {
      return failure(400, [{ code: 9000, message: 'DNS name, type and content are required.' }]);
    }
    const invalid = invalidContent(input.type, input.content);
    if (invalid) return invalid;
    const name = qualified(input.name, zone.name);
    if (fake.records.some((r) => r.zoneId === zone.id && r.name === name && r.type === input.type && r.content === input.content)) {
      return failure(400, [{ code: 81058, message: 'An identical record already exists.' }]);
    }
    const record: CloudflareRecord = {
      id: hexId(),
      zoneId: zone.id,
      name,
      type: input.type,
      content: input.content,
      ttl: typeof input.ttl === 'number' ? input.ttl : 1,
      proxied: input.proxied === true,
    };
    fake.records.push(record);
    return ok(presented(record, zone.name));
  }

  const record = recordId ? fake.records.find((r) => r.id === recordId && r.zoneId === zone.id) : undefined;
  if (!record) return failure(404, [{ code: 81044, message: 'Record does not exist.' }]);
  // PATCH changes the fields given; PUT replaces the record and needs them all.
  if (method === 'PUT' && (typeof input.type !== 'string' || typeof input.name !== 'string' || typeof input.content !== 'string')) {
    return failure(400, [{ code: 9000, message: 'DNS name, type and content are required.' }]);
  }
  const type = typeof input.type === 'string' ? input.type : record.type;
  const content = typeof input.content === 'string' ? input.content : record.content;
  const invalid = invalidContent(type, content);
  if (invalid) return invalid;
  Object.assign(record, {
    type,
    content,
    name: typeof input.name === 'string' ? qualified(input.name, zone.name) : record.name,
    ...(typeof input.ttl === 'number' ? { ttl: input.ttl } : {}),
    ...(typeof input.proxied === 'boolean' ? { proxied: input.proxied } : {}),
  });
  return ok(presented(record, zone.name));
}

/** Starts the fake with these zone names; `zonesPerPage` caps Cloudflare's `per_page` (50 on the real API). */
export async function startFakeCloudflare(zoneNames: string[], options: { token?: string; zonesPerPage?: number } = {}): Promise<FakeCloudflare> {
  const maxPerPage = options.zonesPerPage ?? 2;
  const fake: FakeCloudflare = {
    apiUrl: '',
    token: options.token ?? randomBytes(30).toString('base64url'),
    zones: zoneNames.map((name) => ({ id: hexId(), name: name.toLowerCase() })),
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
        if (!url.pathname.startsWith('/client/v4/')) return notFound(url.pathname);
        const authorization = req.headers.authorization ?? '';
        if (!/^Bearer [A-Za-z0-9_-]{40}$/.test(authorization)) {
          return failure(400, [{ code: 6003, message: 'Invalid request headers', error_chain: [{ code: 6111, message: 'Invalid format for Authorization header' }] }]);
        }
        if (authorization !== `Bearer ${fake.token}`) return failure(401, [{ code: 10000, message: 'Authentication error' }]);
        if (raw !== '' && !(req.headers['content-type'] ?? '').startsWith('application/json')) {
          return failure(400, [{ code: 6007, message: 'Failed to parse request body, content-type must be application/json' }]);
        }
        if (malformed) return failure(400, [{ code: 6007, message: 'Malformed JSON in request body' }]);
        return handle(fake, method, url, url.pathname.slice('/client/v4'.length), body, maxPerPage);
      })();
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return fake;
}
