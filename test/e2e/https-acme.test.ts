import { request } from 'node:https';
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { testWebService } from '../helpers/http-resources.js';
import { requireCaddy } from '../helpers/caddy.js';
import { deploy, deployEnv } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { eventually, freePort } from '../helpers/net.js';
import { requirePebble, startPebble } from '../helpers/pebble.js';
import { required } from '../helpers/requirements.js';
import { startTestServer } from '../helpers/test-server.js';
import { destinationOf } from '../helpers/outbound.js';

const pdns = process.env.PDNS_TEST_URL;

/** One GET over HTTPS on a fresh connection to this host's Caddy, for `hostname`, trusting only `ca`. */
function httpsGet(port: number, hostname: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, servername: hostname, headers: { host: hostname }, ca, agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** A request over HTTPS for `hostname` through this host's Caddy, trusting only `ca`, with a key. */
function httpsRequest(port: number, hostname: string, ca: string, path: string, key: string): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const headers = { host: hostname, authorization: `Bearer ${key}` };
    const req = request({ host: '127.0.0.1', port, path, servername: hostname, headers, ca, agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

function httpGet(port: number, hostname: string, path: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host: hostname }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

const skip = requireCaddy() || requirePebble() || (await requireDocker()) || required(pdns ? false : 'PDNS_TEST_URL not set (npm test starts a PowerDNS server)');

t.test('automatic HTTPS: pebble issues through Caddy, the state is recorded, redeploys fail no request', { skip }, async (t) => {
  const apiKey = process.env.PDNS_TEST_API_KEY!;
  const zone = `acme${Date.now()}.test`;
  const created = await fetch(`${pdns}/api/v1/servers/localhost/zones`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `${zone}.`, kind: 'Native', nameservers: [`ns1.${zone}.`] }),
  });
  t.equal(created.status, 201);

  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const pebble = await startPebble({ dnsServer: `127.0.0.1:${process.env.PDNS_TEST_DNS_PORT}`, httpPort, tlsPort: httpsPort });
  t.teardown(() => pebble.stop());
  const { env } = await deployEnv({
    SLIPWAY_PROXY_HTTP_PORT: String(httpPort),
    SLIPWAY_PROXY_HTTPS_PORT: String(httpsPort),
    SLIPWAY_ACME_DIRECTORY_URL: pebble.directoryUrl,
    SLIPWAY_ACME_CA_ROOTS: pebble.directoryRootFile,
    SLIPWAY_PUBLIC_IP: '127.0.0.1',
    SLIPWAY_RECONCILE_INTERVAL: '0.5',
    // PowerDNS runs on this machine's loopback: allowed, exactly it.
    SLIPWAY_ALLOW_DESTINATIONS: destinationOf(pdns!),
    SLIPWAY_LOG: 'json',
  });
  // HTTPS is a setting: on here through the API (the test servers start with it off).
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Https');
  t.teardown(() => removeProjectLeftovers(p.id));
  const web = await createService(s, p.id, { ...testWebService('web'), env: [{ key: 'GREETING', value: 'hello over https' }] });
  t.equal((await deploy(s, web.id)).done.status, 'succeeded');

  const enabled = await s.call('PATCH', '/api/settings', { body: { httpsEnabled: true, acmeEmail: 'ops@example.test' } });
  t.match(enabled.body, { ok: true, settings: { httpsEnabled: true }, proxy: { ok: true } });
  t.equal((await s.call('PUT', '/api/settings/dns-providers/powerdns', { body: { baseUrl: pdns, apiKey } })).status, 200);

  const hostname = `app.${zone}`;
  const started = performance.now();
  t.equal((await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname } })).status, 200);
  const domainOf = async (name: string) => ((await s.call('GET', `/api/services/${web.id}/overview`)).body.domains as { id: string; hostname: string; certificate: { status: string; reason: string | null; expiresAt: string | null; issuer: string | null } }[]).find((d) => d.hostname === name)!;
  t.equal((await domainOf(hostname)).certificate.status, 'pending', 'pending until Caddy has one');
  t.match((await s.call('POST', `/api/services/${web.id}/domains/${(await domainOf(hostname)).id}/dns-records`, { body: { providerId: 'powerdns' } })).body.result, { action: 'created', targetIp: '127.0.0.1' });

  const issuedRoot = await pebble.issuedRootPem();
  const served = await eventually(() => httpsGet(httpsPort, hostname, issuedRoot).catch((e: Error) => ({ status: 0, body: e.message })), (r) => r.status === 200, 60_000);
  t.same(served, { status: 200, body: 'hello over https' }, 'a client that trusts pebble gets the app over HTTPS');
  t.comment(`domain added → HTTPS with a valid certificate: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await t.rejects(httpsGet(httpsPort, hostname, pebble.issuedRootPem.toString()), 'a client that trusts another root refuses it');

  const active = await eventually(() => domainOf(hostname), (d) => d.certificate.status === 'active', 30_000);
  t.match(active.certificate, { status: 'active', reason: null, expiresAt: String, issuer: /Pebble/ }, 'the domain read model has it, from Caddy storage');
  t.ok(Date.parse(active.certificate.expiresAt!) > Date.now());

  const redirect = await httpGet(httpPort, hostname, '/path?q=1');
  t.equal(redirect.status, 308, 'plain HTTP is redirected');
  t.equal(redirect.location, `https://${hostname}:${httpsPort}/path?q=1`, 'to the HTTPS port, named as it is not 443');
  t.equal((await s.call('GET', `/api/services/${web.id}`)).body.service.primaryUrl, `https://${hostname}:${httpsPort}`, 'where the answers send clients too');

  await t.test('a redeploy under load over HTTPS fails no request', async (t) => {
    const results: { status: number; body: string }[] = [];
    let running = true;
    const load = (async () => {
      while (running) results.push(await httpsGet(httpsPort, hostname, issuedRoot).catch((e: Error) => ({ status: 0, body: e.message })));
    })();
    await s.call('POST', `/api/services/${web.id}/env`, { body: { key: 'GREETING', value: 'second release' } });
    const { done } = await deploy(s, web.id);
    await eventually(async () => results.at(-1)?.body, (b) => b === 'second release', 10_000);
    running = false;
    await load;
    t.equal(done.status, 'succeeded');
    const failed = results.filter((r) => r.status !== 200);
    t.same(failed, [], `${results.length} requests, none failed`);
    t.ok(results.some((r) => r.body === 'hello over https') && results.some((r) => r.body === 'second release'), 'served by both releases');
  });

  await t.test('a domain that cannot be validated ends failed with the reason Caddy logged', async (t) => {
    const unresolvable = `nowhere.${zone}`;
    t.equal((await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname: unresolvable } })).status, 200);
    const failed = await eventually(() => domainOf(unresolvable), (d) => d.certificate.status === 'failed', 60_000);
    t.match(failed.certificate, { status: 'failed', reason: /^the http-01 challenge failed: .*could not resolve/, expiresAt: null });
    t.comment(`reason: ${failed.certificate.reason}`);
    const events = (await s.call('GET', `/api/events?stream=service-${web.id}&limit=1000`)).body.events.filter((e: { type: string }) => e.type === 'DomainCertificateChanged');
    t.ok(events.some((e: { data: { hostname: string; status: string } }) => e.data.hostname === unresolvable && e.data.status === 'failed'), 'on record');
    t.ok(events.some((e: { data: { hostname: string; status: string } }) => e.data.hostname === hostname && e.data.status === 'active'));
  });

  await t.test('the API on its own domain: HTTPS with a certificate, HSTS, the client address counted', async (t) => {
    const apiHost = `api.${zone}`;
    const record = await fetch(`${pdns}/api/v1/servers/localhost/zones/${zone}.`, {
      method: 'PATCH',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ rrsets: [{ name: `${apiHost}.`, type: 'A', ttl: 60, changetype: 'REPLACE', records: [{ content: '127.0.0.1', disabled: false }] }] }),
    });
    t.equal(record.status, 204, 'its address record');
    const set = await s.call('PATCH', '/api/settings', { body: { apiDomain: apiHost } });
    t.match(set.body, { ok: true, settings: { apiDomain: apiHost, sources: { apiDomain: 'settings' } }, proxy: { ok: true } });

    const projects = await eventually(
      () => httpsRequest(httpsPort, apiHost, issuedRoot, '/api/projects', s.key).catch((e: Error) => ({ status: 0, body: e.message, headers: {} as Record<string, string | undefined> })),
      (r) => r.status === 200,
      60_000,
    );
    t.equal(projects.status, 200, 'a client that trusts the ACME root reaches the API over HTTPS');
    t.ok(JSON.parse(projects.body).projects.some((x: { id: string }) => x.id === p.id), 'and reads it');
    t.equal(projects.headers['strict-transport-security'], 'max-age=31536000', 'HSTS on the API domain');
    t.equal(projects.headers['x-frame-options'], 'DENY', 'Slipway\'s own headers come through');

    const plain = await httpGet(httpPort, apiHost, '/api/projects');
    t.equal(plain.status, 308, 'plain HTTP is redirected, never served');
    t.equal(plain.location, `https://${apiHost}:${httpsPort}/api/projects`);

    const refused = await httpsRequest(httpsPort, apiHost, issuedRoot, '/api/projects', 'slw_not-a-key-over-https');
    t.equal(refused.status, 401);
    t.match(s.logs(), /"message":"unknown API key refused","address":"127\.0\.0\.1","keyPrefix":"slw_not-"/, 'failures are counted by the client address Caddy forwards');

    const taken = await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname: apiHost } });
    t.equal(taken.status, 409, 'no service may take the API\'s domain');
    const clash = await s.call('PATCH', '/api/settings', { body: { apiDomain: hostname } });
    t.equal(clash.status, 409, 'nor may the API take a service\'s');
    t.match((await s.call('PATCH', '/api/settings', { body: { apiDomain: null } })).body, { ok: true, settings: { apiDomain: null }, proxy: { ok: true } });
    const gone = await httpsRequest(httpsPort, apiHost, issuedRoot, '/api/projects', s.key).catch((e: Error) => ({ status: 0, body: e.message, headers: {} as Record<string, string | undefined> }));
    t.not(gone.status, 200, 'without the setting the name serves nothing');
  });

  await t.test('HTTP only is an explicit setting', async (t) => {
    const off = await s.call('PATCH', '/api/settings', { body: { httpsEnabled: false } });
    t.match(off.body, { proxy: { ok: true } });
    t.equal((await domainOf(hostname)).certificate.status, 'disabled');
    const plain = await httpGet(httpPort, hostname, '/');
    t.equal(plain.status, 200, 'served over HTTP, no redirect');
  });
});
