import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { applyDnsRecord, NoMatchingZoneError } from '../../src/integrations/dns/apply-record.js';
import { DnsProviderError, type DnsProviderClient, type DnsRecordType } from '../../src/integrations/dns/provider.js';
import { canonicalDnsProviderId, dnsCredentialsSchema, openDnsProvider, verifyDnsProvider } from '../../src/integrations/dns/providers.js';
import { startFakeCloudflare } from '../helpers/fake-cloudflare.js';
import { startFakeDigitalOcean } from '../helpers/fake-digitalocean.js';
import { freePort } from '../helpers/net.js';
import { required } from '../helpers/requirements.js';
import { policyAllowing } from '../helpers/outbound.js';
import { createDestinationPolicy } from '../../src/outbound/destination-policy.js';
import { ForbiddenDestinationError } from '../../src/outbound/forbidden-destination.js';

/** What the contract needs of each provider besides its client: what it holds, and how writes show. */
interface Harness {
  open(options?: { timeoutMs?: number }): DnsProviderClient;
  /** A client whose credentials the provider refuses, and the provider's own words for it. */
  refused: { client: DnsProviderClient; status: number; message: string };
  /** `parent` and `child` (a zone inside `parent`), plus at least one more so that listing them crosses pages. */
  zones: { parent: string; child: string; all: string[] };
  /** The addresses the provider serves for the name, read from the provider itself, sorted. */
  addresses(fqdn: string, type: DnsRecordType): Promise<string[]>;
  /** Anything that changes when the provider is written to (a request count, a zone serial). */
  writeMark(): Promise<unknown>;
  /** The provider's own message for an A record whose content is not an IPv4 address. */
  invalidAddress: { status: number; message: RegExp };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

/** The contract every provider client honours, through applyDnsRecord. */
function contract(t: Test, h: Harness) {
  const { parent, child } = h.zones;

  t.test('lists every zone, across pages', async (t) => {
    const zones = await verifyDnsProvider(h.open());
    t.same(
      zones.map((z) => z.name).filter((n) => h.zones.all.includes(n)).sort(),
      [...h.zones.all].sort(),
    );
    t.ok(zones.every((z) => z.name === z.name.toLowerCase() && !z.name.endsWith('.')), 'names lowercase, without the trailing dot');
  });

  t.test('creates, leaves, then updates the record in the longest matching zone', async (t) => {
    const client = h.open();
    const hostname = `app.${child}`;
    const created = await applyDnsRecord(client, hostname, '203.0.113.7');
    t.same(created, { action: 'created', hostname, recordType: 'A', host: 'app', zone: child, targetIp: '203.0.113.7' });
    t.same(await h.addresses(hostname, 'A'), ['203.0.113.7']);

    const before = await h.writeMark();
    t.same(await applyDnsRecord(client, hostname.toUpperCase(), '203.0.113.7'), { ...created, action: 'unchanged' }, 'case does not matter');
    t.same(await h.writeMark(), before, 'nothing written when the record already points there');

    const updated = await applyDnsRecord(client, hostname, '198.51.100.9');
    t.same(updated, { ...created, action: 'updated', targetIp: '198.51.100.9' });
    t.same(await h.addresses(hostname, 'A'), ['198.51.100.9'], 'changed in place, no second record');
    t.equal((await applyDnsRecord(client, hostname, '198.51.100.9')).action, 'unchanged');
  });

  t.test('a name in the parent zone goes there, the apex is @', async (t) => {
    const client = h.open();
    t.match(await applyDnsRecord(client, `deep.www.${parent}`, '203.0.113.8'), { action: 'created', host: 'deep.www', zone: parent });
    t.same(await h.addresses(`deep.www.${parent}`, 'A'), ['203.0.113.8']);
    t.same(await applyDnsRecord(client, `${parent}.`, '203.0.113.9'), { action: 'created', hostname: parent, recordType: 'A', host: '@', zone: parent, targetIp: '203.0.113.9' });
    t.same(await h.addresses(parent, 'A'), ['203.0.113.9']);
    t.match(await applyDnsRecord(client, child, '203.0.113.10'), { action: 'created', host: '@', zone: child }, "a child zone's apex is in the child zone");
    t.same(await h.addresses(child, 'A'), ['203.0.113.10']);
  });

  t.test('an IPv6 address gets an AAAA record, next to the A record', async (t) => {
    const client = h.open();
    const hostname = `dual.${child}`;
    await applyDnsRecord(client, hostname, '203.0.113.11');
    t.same(await applyDnsRecord(client, hostname, '2001:db8::7'), { action: 'created', hostname, recordType: 'AAAA', host: 'dual', zone: child, targetIp: '2001:db8::7' });
    t.same(await h.addresses(hostname, 'AAAA'), ['2001:db8::7']);
    t.same(await h.addresses(hostname, 'A'), ['203.0.113.11'], 'the A record is left alone');
    t.equal((await applyDnsRecord(client, hostname, '2001:0DB8:0:0::7')).action, 'unchanged', 'the same address in another spelling');
    t.match(await applyDnsRecord(client, hostname, '2001:db8::8'), { action: 'updated', recordType: 'AAAA' });
    t.same(await h.addresses(hostname, 'AAAA'), ['2001:db8::8']);
  });

  t.test('no zone contains the name: NoMatchingZoneError with the zones looked at', async (t) => {
    const client = h.open();
    const all = (await client.listZones()).map((z) => z.name).sort();
    for (const hostname of [`www.nowhere-${parent}.invalid`, `x${parent}`, `www.x${parent}`]) {
      const error = await failureOf(applyDnsRecord(client, hostname, '203.0.113.7'));
      t.ok(error instanceof NoMatchingZoneError, `${hostname} is in no zone (only on a label boundary)`);
      t.same((error as NoMatchingZoneError).zones, all);
      t.match((error as Error).message, `no zone contains ${hostname}`);
    }
  });

  t.test('refused credentials: a DnsProviderError with the provider’s own message', async (t) => {
    const error = await failureOf(verifyDnsProvider(h.refused.client));
    t.ok(error instanceof DnsProviderError);
    t.equal((error as DnsProviderError).message, h.refused.message);
    t.equal((error as DnsProviderError).status, h.refused.status);
  });

  t.test('content the provider rejects: its validation message', async (t) => {
    const error = await failureOf(applyDnsRecord(h.open(), `bad.${child}`, 'not-an-address'));
    t.ok(error instanceof DnsProviderError);
    t.match(error, { status: h.invalidAddress.status, message: h.invalidAddress.message });
    t.same(await h.addresses(`bad.${child}`, 'A'), [], 'nothing written');
  });
}

/** A server that never answers, nor listens: both end in a DnsProviderError naming the URL. */
t.test('network failures and timeouts', async (t) => {
  const port = await freePort();
  const unreachable = openDnsProvider('cloudflare', { apiToken: 'x' }, { cloudflareApiUrl: `http://127.0.0.1:${port}/client/v4`, outbound: policyAllowing(`http://127.0.0.1:${port}`) });
  const refused = await failureOf(unreachable.listZones());
  t.ok(refused instanceof DnsProviderError);
  t.match(refused, { status: null, message: new RegExp(`^could not reach http://127\\.0\\.0\\.1:${port}/client/v4/zones: .*ECONNREFUSED`) });

  const fake = await startFakeDigitalOcean(['slow.test']);
  t.teardown(() => fake.close());
  fake.stall = true;
  const started = Date.now();
  const slow = openDnsProvider('digitalocean', { apiToken: fake.token }, { digitaloceanApiUrl: fake.apiUrl, timeoutMs: 300, outbound: policyAllowing(fake.apiUrl) });
  const timedOut = await failureOf(slow.listZones());
  t.match(timedOut, { status: null, message: `could not reach ${fake.apiUrl}/v2/domains: no answer within 0.3 s` });
  t.ok(timedOut instanceof DnsProviderError);
  t.ok(Date.now() - started < 5000, 'gave up at the timeout');
});

t.test('an error page or plain text that is not the provider’s JSON error: only the HTTP status, with its standard phrase', async (t) => {
  const answers = [
    [502, 'text/html', '<html><body>Bad gateway internal-secret</body></html>'],
    [401, 'text/plain', 'internal-secret plain words'],
    [418, 'application/json', JSON.stringify({ error: '<a href="x">internal-secret</a>' })],
  ] as const;
  let next = 0;
  const gateway = createServer((_req, res) => {
    const [status, type, body] = answers[next++ % answers.length]!;
    res.writeHead(status, 'internal-secret reason phrase', { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => gateway.close(() => resolve())));
  const base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  const client = openDnsProvider('powerdns', { baseUrl: base, apiKey: 'k', serverId: 'localhost' }, { outbound: policyAllowing(base) });
  for (const expected of ['HTTP 502 Bad Gateway', 'HTTP 401 Unauthorized', "HTTP 418 I'm a Teapot"]) {
    const error = await failureOf(client.listZones());
    t.ok(error instanceof DnsProviderError);
    t.equal((error as Error).message, expected);
    t.notOk((error as Error).message.includes('internal-secret'));
  }
});

t.test('a provider on loopback is refused unless allowed; a base URL cannot pick the path', async (t) => {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const defaults = createDestinationPolicy({ rules: async () => ({ allowed: [], denyPrivate: false }) });
  const refused = await failureOf(openDnsProvider('powerdns', { baseUrl: base, apiKey: 'k', serverId: 'localhost' }, { outbound: defaults }).listZones());
  t.type(refused, ForbiddenDestinationError);
  const cloudflare = await failureOf(openDnsProvider('cloudflare', { apiToken: 't' }, { cloudflareApiUrl: `${base}/client/v4`, outbound: defaults }).listZones());
  t.type(cloudflare, ForbiddenDestinationError, 'the API URLs of the environment go through the same policy');
  t.same(requests, [], 'nothing reached the server');

  await openDnsProvider('powerdns', { baseUrl: `${base}/prefix`, apiKey: 'k', serverId: 'localhost' }, { outbound: policyAllowing(base) }).listZones();
  t.same(requests, ['/prefix/api/v1/servers/localhost/zones'], 'the path is appended to the base path');

  const pdns = dnsCredentialsSchema('powerdns');
  for (const baseUrl of [`${base}/?x=`, `${base}/config/#`, `${base}?`, `http://u:p@127.0.0.1:1/`]) {
    t.notOk(pdns.safeParse({ baseUrl, apiKey: 'k' }).success, `${baseUrl} is refused`);
  }
  for (const serverId of ['..', '.', 'a/b', 'a?b']) t.notOk(pdns.safeParse({ baseUrl: base, apiKey: 'k', serverId }).success, `server id ${serverId}`);
});

t.test('provider ids and credential schemas', async (t) => {
  t.equal(canonicalDnsProviderId('provider_a'), 'cloudflare');
  t.equal(canonicalDnsProviderId('provider_b'), 'digitalocean');
  t.equal(canonicalDnsProviderId('provider_c'), 'powerdns');
  t.equal(canonicalDnsProviderId('powerdns'), 'powerdns');
  t.equal(canonicalDnsProviderId('route53'), null);
  t.equal(canonicalDnsProviderId('toString'), null, 'not an inherited property');

  const token = dnsCredentialsSchema('cloudflare');
  t.same(token.parse({ apiToken: ' abc ' }), { apiToken: 'abc' });
  t.notOk(token.safeParse({ apiToken: '' }).success, 'empty');
  t.notOk(token.safeParse({ apiToken: 'x'.repeat(513) }).success, 'too long');
  t.notOk(token.safeParse({ apiToken: 'abc', email: 'a@b.c' }).success, 'strict');
  t.notOk(dnsCredentialsSchema('digitalocean').safeParse({}).success);

  const pdns = dnsCredentialsSchema('powerdns');
  t.same(pdns.parse({ baseUrl: 'http://127.0.0.1:8081', apiKey: 'k' }), { baseUrl: 'http://127.0.0.1:8081', apiKey: 'k', serverId: 'localhost' }, 'serverId defaults to localhost');
  t.notOk(pdns.safeParse({ baseUrl: 'ftp://dns.example', apiKey: 'k' }).success, 'http or https only');
  t.notOk(pdns.safeParse({ baseUrl: 'not a url', apiKey: 'k' }).success);
  t.notOk(pdns.safeParse({ baseUrl: 'https://dns.example', apiKey: '' }).success);
  t.notOk(pdns.safeParse({ baseUrl: 'https://dns.example', apiKey: 'k', apiToken: 'x' }).success, 'strict');

  t.throws(() => openDnsProvider('powerdns', { apiKey: 'k' }, { outbound: policyAllowing() }), DnsProviderError, 'incomplete stored credentials are refused before any call');
});

t.test('Cloudflare', async (t) => {
  const fake = await startFakeCloudflare(['example.test', 'sub.example.test', 'other.test', 'fourth.test', 'fifth.test']);
  t.teardown(() => fake.close());
  const endpoints = { cloudflareApiUrl: fake.apiUrl, outbound: policyAllowing(fake.apiUrl) };
  const zoneId = (name: string) => fake.zones.find((z) => z.name === name)!.id;
  const writes = () => fake.requests.filter((r) => r.method !== 'GET');

  contract(t, {
    open: (options = {}) => openDnsProvider('cloudflare', { apiToken: fake.token }, { ...endpoints, ...options }),
    refused: { client: openDnsProvider('cloudflare', { apiToken: 'W'.repeat(40) }, endpoints), status: 401, message: 'Authentication error' },
    zones: { parent: 'example.test', child: 'sub.example.test', all: fake.zones.map((z) => z.name) },
    addresses: async (fqdn, type) => fake.records.filter((r) => r.name === fqdn && r.type === type).map((r) => r.content).sort(),
    writeMark: async () => writes().length,
    invalidAddress: { status: 400, message: /^Content for A record must be a valid IPv4 address\.$/ },
  });

  t.test('the calls as Cloudflare publishes them', async (t) => {
    fake.requests.length = 0;
    const client = openDnsProvider('cloudflare', { apiToken: fake.token }, endpoints);
    await applyDnsRecord(client, 'calls.example.test', '192.0.2.1');
    await applyDnsRecord(client, 'calls.example.test', '192.0.2.2');
    const id = zoneId('example.test');
    const recordId = fake.records.find((r) => r.name === 'calls.example.test')!.id;
    t.same(
      fake.requests.map((r) => `${r.method} ${r.path}`),
      [
        ...[1, 2, 3].map((page) => `GET /client/v4/zones?page=${page}&per_page=50`),
        `GET /client/v4/zones/${id}/dns_records?type=A&name=calls.example.test&per_page=100`,
        `POST /client/v4/zones/${id}/dns_records`,
        ...[1, 2, 3].map((page) => `GET /client/v4/zones?page=${page}&per_page=50`),
        `GET /client/v4/zones/${id}/dns_records?type=A&name=calls.example.test&per_page=100`,
        `PATCH /client/v4/zones/${id}/dns_records/${recordId}`,
      ],
      'five zones at two a page are three pages',
    );
    t.ok(fake.requests.every((r) => r.authorization === `Bearer ${fake.token}`));
    t.same(writes()[0]!.body, { type: 'A', name: 'calls.example.test', content: '192.0.2.1', ttl: 1, proxied: false }, 'automatic TTL, not proxied');
    t.same(writes()[1]!.body, { type: 'A', name: 'calls.example.test', content: '192.0.2.2' });
    t.match(fake.records.find((r) => r.id === recordId), { ttl: 1, proxied: false, content: '192.0.2.2' });
  });

  t.test('a malformed token: the error and its chain', async (t) => {
    const error = await failureOf(openDnsProvider('cloudflare', { apiToken: 'short' }, endpoints).listZones());
    t.match(error, { status: 400, message: 'Invalid request headers: Invalid format for Authorization header' });
  });

  t.test('a write refused', async (t) => {
    fake.refuseWrites = { status: 403, message: 'Unauthorized to access requested resource' };
    t.teardown(() => void (fake.refuseWrites = null));
    const error = await failureOf(applyDnsRecord(openDnsProvider('cloudflare', { apiToken: fake.token }, endpoints), 'refused.other.test', '192.0.2.1'));
    t.match(error, { status: 403, message: 'Unauthorized to access requested resource' });
  });
});

t.test('DigitalOcean', async (t) => {
  const fake = await startFakeDigitalOcean(['example.test', 'sub.example.test', 'other.test', 'fourth.test', 'fifth.test']);
  t.teardown(() => fake.close());
  const endpoints = { digitaloceanApiUrl: fake.apiUrl, outbound: policyAllowing(fake.apiUrl) };
  const writes = () => fake.requests.filter((r) => r.method !== 'GET');

  contract(t, {
    open: (options = {}) => openDnsProvider('digitalocean', { apiToken: fake.token }, { ...endpoints, ...options }),
    refused: { client: openDnsProvider('digitalocean', { apiToken: 'dop_v1_wrong' }, endpoints), status: 401, message: 'Unable to authenticate you' },
    zones: { parent: 'example.test', child: 'sub.example.test', all: fake.domains },
    addresses: async (fqdn, type) => fake.records.filter((r) => r.name === fqdn && r.type === type).map((r) => r.data).sort(),
    writeMark: async () => writes().length,
    invalidAddress: { status: 422, message: /^IP address did not match IPv4 format/ },
  });

  t.test('the calls as DigitalOcean publishes them', async (t) => {
    fake.requests.length = 0;
    const client = openDnsProvider('digitalocean', { apiToken: fake.token }, endpoints);
    await applyDnsRecord(client, 'calls.example.test', '192.0.2.1');
    await applyDnsRecord(client, 'calls.example.test', '192.0.2.2');
    const recordId = fake.records.find((r) => r.name === 'calls.example.test')!.id;
    const listing = [1, 2, 3].map((page) => `GET /v2/domains?page=${page}&per_page=200`);
    t.same(
      fake.requests.map((r) => `${r.method} ${r.path}`),
      [
        ...listing,
        'GET /v2/domains/example.test/records?type=A&name=calls.example.test&per_page=200',
        'POST /v2/domains/example.test/records',
        ...listing,
        'GET /v2/domains/example.test/records?type=A&name=calls.example.test&per_page=200',
        `PUT /v2/domains/example.test/records/${recordId}`,
      ],
      'five domains at two a page are three pages, found through links.pages.next',
    );
    t.ok(fake.requests.every((r) => r.authorization === `Bearer ${fake.token}`), 'the links name api.digitalocean.com, yet every call went to the configured API');
    t.same(writes()[0]!.body, { type: 'A', name: 'calls', data: '192.0.2.1', ttl: 300 }, 'the name relative to the domain');
    t.same(writes()[1]!.body, { type: 'A', name: 'calls', data: '192.0.2.2' });
    t.match(fake.records.find((r) => r.id === recordId), { name: 'calls.example.test', ttl: 300, data: '192.0.2.2' });

    await applyDnsRecord(client, 'example.test', '192.0.2.3');
    t.match(writes().at(-1)!.body, { name: '@' }, 'the apex is written as @');
  });
});

const pdnsUrl = process.env.PDNS_TEST_URL;
const pdnsKey = process.env.PDNS_TEST_API_KEY ?? '';
const pdnsServerId = process.env.PDNS_TEST_SERVER_ID ?? 'localhost';
const dnsPort = process.env.PDNS_TEST_DNS_PORT;
const digMissing = (() => {
  try {
    execFileSync('dig', ['-v'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'dig is not installed (apt-get install dnsutils)';
  }
})();
const pdnsMissing = !pdnsUrl
  ? 'PDNS_TEST_URL is not set (npm test starts a PowerDNS server: scripts/lib/powerdns.sh)'
  : !dnsPort
    ? 'PDNS_TEST_DNS_PORT is not set'
    : digMissing;

t.test('PowerDNS, a real server', { skip: required(pdnsMissing) }, async (t) => {
  const api = `${pdnsUrl!.replace(/\/+$/, '')}/api/v1/servers/${pdnsServerId}`;
  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { 'x-api-key': pdnsKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : null;
  };
  // Names of their own: the server may be shared with other tests and earlier runs.
  const parent = `p${randomBytes(4).toString('hex')}.test`;
  const zones = [parent, `sub.${parent}`, `other-${parent}`];
  for (const zone of zones) await admin('POST', '/zones', { name: `${zone}.`, kind: 'Native', nameservers: [`ns1.${zone}.`] });
  t.teardown(async () => {
    for (const zone of zones) await admin('DELETE', `/zones/${zone}.`).catch(() => undefined);
  });

  const dig = async (name: string, type: DnsRecordType) => {
    const { stdout } = await promisify(execFile)('dig', ['@127.0.0.1', '-p', dnsPort!, '+short', '+time=2', '+tries=2', name, type]);
    return stdout.trim().split('\n').filter(Boolean).sort();
  };
  // Every accepted spelling of the URL: with a trailing slash, with /api/v1.
  const spellings = [pdnsUrl!, `${pdnsUrl!.replace(/\/+$/, '')}/`, `${pdnsUrl!.replace(/\/+$/, '')}/api/v1`, `${pdnsUrl!.replace(/\/+$/, '')}/api/v1/`];
  let opened = 0;
  const outbound = policyAllowing(pdnsUrl!);

  contract(t, {
    open: (options = {}) => openDnsProvider('powerdns', { baseUrl: spellings[opened++ % spellings.length]!, apiKey: pdnsKey, serverId: pdnsServerId }, { ...options, outbound }),
    refused: { client: openDnsProvider('powerdns', { baseUrl: pdnsUrl!, apiKey: 'wrong-key', serverId: pdnsServerId }, { outbound }), status: 401, message: 'Unauthorized' },
    zones: { parent, child: `sub.${parent}`, all: zones },
    // What the server answers on port 53's stand-in, not what the API says it holds.
    addresses: dig,
    writeMark: async () => (await admin('GET', `/zones/sub.${parent}.`))?.edited_serial,
    invalidAddress: { status: 422, message: /Parsing record content/ },
  });

  t.test('dig answers the applied record', async (t) => {
    const client = openDnsProvider('powerdns', { baseUrl: pdnsUrl!, apiKey: pdnsKey, serverId: pdnsServerId }, { outbound });
    const hostname = `shop.sub.${parent}`;
    t.equal((await applyDnsRecord(client, hostname, '192.0.2.44')).action, 'created');
    t.same(await dig(hostname, 'A'), ['192.0.2.44']);
    t.equal((await applyDnsRecord(client, hostname, '192.0.2.45')).action, 'updated');
    t.same(await dig(hostname, 'A'), ['192.0.2.45']);
    const zone = await admin('GET', `/zones/sub.${parent}.`);
    const rrset = (zone?.rrsets as { name: string; type: string; ttl: number }[]).find((r) => r.name === `${hostname}.` && r.type === 'A');
    t.equal(rrset?.ttl, 300);
  });

  t.test('an unknown server id is the server’s 404', async (t) => {
    const error = await failureOf(openDnsProvider('powerdns', { baseUrl: pdnsUrl!, apiKey: pdnsKey, serverId: 'nope' }, { outbound }).listZones());
    t.ok(error instanceof DnsProviderError);
    t.equal((error as DnsProviderError).status, 404);
  });
});
