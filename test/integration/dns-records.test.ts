import { execFileSync } from 'node:child_process';
import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { startFakeCloudflare } from '../helpers/fake-cloudflare.js';
import { startFakeDigitalOcean } from '../helpers/fake-digitalocean.js';
import { destinationOf } from '../helpers/outbound.js';
import { required } from '../helpers/requirements.js';
import { startTestServer } from '../helpers/test-server.js';

const CF_ZONES = ['example.test', 'sub.example.test', 'other.test', 'fourth.test', 'fifth.test'];
const cloudflare = await startFakeCloudflare(CF_ZONES);
const digitalocean = await startFakeDigitalOcean(['do.test', 'more.test', 'last.test']);
t.teardown(() => Promise.all([cloudflare.close(), digitalocean.close()]));

// The fakes' URLs are allowed as configured; PowerDNS (connected through the API) runs on loopback: allowed too, exactly it.
const s = await startTestServer({
  SLIPWAY_CLOUDFLARE_API_URL: cloudflare.apiUrl,
  SLIPWAY_DIGITALOCEAN_API_URL: digitalocean.apiUrl,
  ...(process.env.PDNS_TEST_URL ? { SLIPWAY_ALLOW_DESTINATIONS: destinationOf(process.env.PDNS_TEST_URL) } : {}),
});
t.teardown(() => s.close());
const project = await createProject(s, 'Dns');
const web = await createService(s, project.id, { name: 'web', repoFullName: 'acme/web', branch: 'main' });

async function domain(hostname: string) {
  const r = await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname } });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  const domains = (await s.call('GET', `/api/services/${web.id}/overview`)).body.domains as { id: string; hostname: string }[];
  return domains.find((d) => d.hostname === hostname)!.id;
}
const apply = (domainId: string, providerId: string, key?: string) =>
  s.call('POST', `/api/services/${web.id}/domains/${domainId}/dns-records`, { body: { providerId }, ...(key ? { key } : {}) });
const auditText = async () => JSON.stringify((await s.call('GET', '/api/events?limit=1000')).body.events);

t.test('connecting verifies the credentials with the provider and saves only what worked', async (t) => {
  const wrong = await s.call('PUT', '/api/settings/dns-providers/cloudflare', { body: { apiToken: 'x'.repeat(40) } });
  t.equal(wrong.status, 400);
  t.match(wrong.body, { error: { code: 'dns_provider_failed', message: /Cloudflare refused the credentials: HTTP 401: Authentication error$/ } });
  t.equal((await s.call('GET', '/api/settings')).body.settings.dnsProviders[0].connected, false, 'nothing saved');
  const bad = await s.call('PUT', '/api/settings/dns-providers/cloudflare', { body: { apiToken: '' } });
  t.equal(bad.status, 400);
  t.equal((await s.call('PUT', '/api/settings/dns-providers/powerdns', { body: { apiKey: 'k' } })).status, 400, 'powerdns needs its baseUrl');

  const connected = await s.call('PUT', '/api/settings/dns-providers/provider_a', { body: { apiToken: cloudflare.token } });
  t.equal(connected.status, 200, JSON.stringify(connected.body));
  t.same(connected.body.provider.zones, CF_ZONES, 'every zone, across the pages');
  t.ok(cloudflare.requests.filter((r) => r.path.startsWith('/client/v4/zones?')).length >= 3, 'paged (two zones a page)');
  const listed = (await s.call('GET', '/api/settings')).body.settings.dnsProviders[0];
  t.match(listed, { id: 'cloudflare', name: 'Cloudflare', connected: true, hasCredentials: true, zones: CF_ZONES });
  t.notMatch(JSON.stringify((await s.call('GET', '/api/settings')).body), cloudflare.token, 'the token is never shown');
  t.notMatch(await auditText(), cloudflare.token, 'nor in the history');
  t.notMatch(s.logs, cloudflare.token, 'nor in the log');
});

t.test('dns-records creates, leaves and updates the address record in the longest matching zone', async (t) => {
  const id = await domain('app.sub.example.test');
  const started = performance.now();
  const created = await apply(id, 'provider_a');
  t.equal(created.status, 200, JSON.stringify(created.body));
  t.same(created.body.result, { provider: 'provider_a', providerName: 'Cloudflare', action: 'created', hostname: 'app.sub.example.test', recordType: 'A', host: 'app', zone: 'sub.example.test', targetIp: '203.0.113.7' });
  t.comment(`cloudflare apply: ${(performance.now() - started).toFixed(0)} ms`);
  t.match(created.body.domain, { id, hostname: 'app.sub.example.test', dns: { providerId: 'cloudflare', recordType: 'A', targetIp: '203.0.113.7', zone: 'sub.example.test', appliedAt: String } });
  t.same(cloudflare.records.map((r) => [cloudflare.zones.find((z) => z.id === r.zoneId)?.name, r.name, r.type, r.content]), [['sub.example.test', 'app.sub.example.test', 'A', '203.0.113.7']]);

  t.equal((await apply(id, 'cloudflare')).body.result.action, 'unchanged');
  await s.call('PATCH', '/api/settings', { body: { publicIp: '198.51.100.9' } });
  t.match((await apply(id, 'cloudflare')).body.result, { action: 'updated', targetIp: '198.51.100.9' });
  t.equal(cloudflare.records.length, 1, 'updated in place');
  t.equal(cloudflare.records[0]!.content, '198.51.100.9');

  await s.call('PATCH', '/api/settings', { body: { publicIp: '2001:db8::7' } });
  t.match((await apply(id, 'cloudflare')).body.result, { action: 'created', recordType: 'AAAA', targetIp: '2001:db8::7' }, 'an IPv6 address gets an AAAA record');
  await s.call('PATCH', '/api/settings', { body: { publicIp: null } });

  const apex = await domain('other.test');
  t.match((await apply(apex, 'cloudflare')).body.result, { action: 'created', host: '@', zone: 'other.test' });

  const overview = (await s.call('GET', `/api/services/${web.id}/overview`)).body.domains.find((d: { id: string }) => d.id === id);
  t.match(overview.dns, { providerId: 'cloudflare', recordType: 'AAAA' }, 'the domain read model keeps the last apply');
  const events = (await s.call('GET', `/api/events?stream=service-${web.id}&limit=1000`)).body.events.filter((e: { type: string }) => e.type === 'DomainDnsRecordApplied');
  t.equal(events.length, 5, 'every apply is an event');
});

t.test('failures: no zone (422 naming the zones), the provider refusing (502), not connected (409), bad input', async (t) => {
  const stray = await domain('www.elsewhere.example');
  const noZone = await apply(stray, 'cloudflare');
  t.equal(noZone.status, 422);
  t.match(noZone.body, { error: { code: 'no_matching_zone', message: `no zone of Cloudflare contains www.elsewhere.example; zones looked at: ${[...CF_ZONES].sort().join(', ')}` } });

  const id = await domain('refused.example.test');
  cloudflare.refuseWrites = { status: 403, message: 'Unauthorized to access requested resource' };
  const refused = await apply(id, 'cloudflare');
  cloudflare.refuseWrites = null;
  t.equal(refused.status, 502);
  t.match(refused.body, { error: { code: 'dns_provider_failed', message: /Cloudflare refused the record: HTTP 403: Unauthorized to access requested resource/ } });

  const notConnected = await apply(id, 'provider_b');
  t.equal(notConnected.status, 409);
  t.match(notConnected.body, { error: { code: 'dns_provider_not_connected', message: /DigitalOcean is not connected/ } });
  t.equal((await apply(id, 'route53')).status, 400);
  t.equal((await s.call('POST', `/api/services/${web.id}/domains/${id}/dns-records`, { body: {} })).status, 400);
  t.equal((await apply('00000000-0000-4000-8000-000000000000', 'cloudflare')).status, 404);

  const reader = await createKey(s, 'read', [project.id]);
  const other = await createProject(s, 'Other');
  const stranger = await createKey(s, 'write', [other.id]);
  t.equal((await apply(id, 'cloudflare', reader.secret)).status, 403, 'a read key');
  t.equal((await apply(id, 'cloudflare', stranger.secret)).status, 404, 'a key that cannot see the project');
  const events = (await s.call('GET', `/api/events?stream=service-${web.id}&limit=1000`)).body.events.filter((e: { type: string; data: { hostname: string } }) => e.type === 'DomainDnsRecordApplied' && e.data.hostname === 'refused.example.test');
  t.equal(events.length, 0, 'a failed apply records nothing');
});

t.test('DigitalOcean follows the same contract', async (t) => {
  t.equal((await s.call('PUT', '/api/settings/dns-providers/digitalocean', { body: { apiToken: 'wrong' } })).body.error.message, 'DigitalOcean refused the credentials: HTTP 401: Unable to authenticate you');
  const connected = await s.call('PUT', '/api/settings/dns-providers/digitalocean', { body: { apiToken: digitalocean.token } });
  t.same(connected.body.provider.zones, ['do.test', 'more.test', 'last.test'], 'across pages');
  const id = await domain('api.last.test');
  t.match((await apply(id, 'digitalocean')).body.result, { provider: 'digitalocean', providerName: 'DigitalOcean', action: 'created', host: 'api', zone: 'last.test' });
  t.same(digitalocean.records.map((r) => [r.name, r.data]), [['api.last.test', '203.0.113.7']]);
  t.equal((await apply(id, 'digitalocean')).body.result.action, 'unchanged');
  t.equal((await s.call('DELETE', '/api/settings/dns-providers/digitalocean')).status, 200);
  t.equal((await apply(id, 'digitalocean')).status, 409, 'disconnected');
  t.equal((await s.call('DELETE', '/api/settings/dns-providers/digitalocean')).status, 404);
});

const pdns = process.env.PDNS_TEST_URL;
t.test('PowerDNS for real: the record answers from the server', { skip: required(pdns ? false : 'PDNS_TEST_URL not set (npm test starts a PowerDNS server)') }, async (t) => {
  const apiKey = process.env.PDNS_TEST_API_KEY!;
  const dnsPort = process.env.PDNS_TEST_DNS_PORT!;
  const zone = `z${Date.now()}.pdns.test`;
  const created = await fetch(`${pdns}/api/v1/servers/localhost/zones`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `${zone}.`, kind: 'Native', nameservers: [`ns1.${zone}.`] }),
  });
  t.equal(created.status, 201);
  const refused = await s.call('PUT', '/api/settings/dns-providers/powerdns', { body: { baseUrl: pdns, apiKey: 'wrong', serverId: 'localhost' } });
  t.match(refused.body, { error: { code: 'dns_provider_failed', message: /PowerDNS refused the credentials: HTTP 401/ } });
  const connected = await s.call('PUT', '/api/settings/dns-providers/provider_c', { body: { baseUrl: `${pdns}/api/v1`, apiKey, serverId: 'localhost' } });
  t.equal(connected.status, 200, JSON.stringify(connected.body));
  t.ok(connected.body.provider.zones.includes(zone));
  t.match((await s.call('GET', '/api/settings')).body.settings.dnsProviders[2], { id: 'powerdns', connected: true, baseUrl: `${pdns}/api/v1`, serverId: 'localhost' });

  const dig = (name: string, type = 'A') => execFileSync('dig', ['@127.0.0.1', '-p', dnsPort, '+short', name, type], { encoding: 'utf8' }).trim();
  const id = await domain(`shop.${zone}`);
  const started = performance.now();
  const r = await apply(id, 'powerdns');
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(r.body.result, { action: 'created', host: 'shop', zone, recordType: 'A', targetIp: '203.0.113.7' });
  t.equal(dig(`shop.${zone}`), '203.0.113.7', 'dig gets the record from PowerDNS');
  t.comment(`POST dns-records to the record answering from PowerDNS: ${(performance.now() - started).toFixed(0)} ms`);
  t.equal((await apply(id, 'powerdns')).body.result.action, 'unchanged');
  await s.call('PATCH', '/api/settings', { body: { publicIp: '198.51.100.44' } });
  t.equal((await apply(id, 'powerdns')).body.result.action, 'updated');
  t.equal(dig(`shop.${zone}`), '198.51.100.44', 'and the update');
  await s.call('PATCH', '/api/settings', { body: { publicIp: null } });
});
