import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { loadConfig } from '../../src/config.js';
import { startFakeOpenAi } from '../helpers/fake-ai-servers.js';
import { assertError, detailPaths } from '../helpers/http-errors.js';
import { destinationOf } from '../helpers/outbound.js';
import { startS3Server } from '../helpers/s3-server.js';
import { startTestServer } from '../helpers/test-server.js';

const s = await startTestServer({ SLIPWAY_ROOT_DOMAIN: 'env.example.com' });
t.teardown(() => s.close());

const settingsOf = async (key?: string) => (await s.call('GET', '/api/settings', key ? { key } : {})).body.settings;

t.test('the environment gives the defaults; PATCH wins over it; null puts the default back', async (t) => {
  const before = await settingsOf();
  t.match(before, {
    rootDomain: 'env.example.com',
    publicIp: '203.0.113.7',
    acmeEmail: null,
    acmeDirectoryUrl: 'https://acme-v02.api.letsencrypt.org/directory',
    httpsEnabled: false,
    sources: { rootDomain: 'environment', publicIp: 'environment', httpsEnabled: 'environment' },
  });

  const patched = await s.call('PATCH', '/api/settings', {
    body: { rootDomain: 'Apps.Example.ORG.', publicIp: '198.51.100.20', acmeEmail: 'ops@example.org', httpsEnabled: false },
  });
  t.equal(patched.status, 200, JSON.stringify(patched.body));
  t.match(patched.body.settings, { rootDomain: 'apps.example.org', publicIp: '198.51.100.20', acmeEmail: 'ops@example.org', sources: { rootDomain: 'settings', acmeDirectoryUrl: 'environment' } });
  t.same(patched.body.proxy, { ok: false, detail: 'proxy disabled (SLIPWAY_PROXY=off)' }, 'the proxy result is reported');

  // The settings in force reach what uses them: a database's generated public hostname and the overview's address.
  const p = await createProject(s, 'Settings');
  const db = await createService(s, p.id, { name: 'Main DB', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: true, env: [] });
  t.equal(db.databasePublicHostname, 'main-db.apps.example.org', 'the root domain set here names new services');
  t.equal((await s.call('GET', `/api/services/${db.id}/overview`)).body.publicIp, '198.51.100.20');

  const reset = await s.call('PATCH', '/api/settings', { body: { rootDomain: null, publicIp: null } });
  t.match(reset.body.settings, { rootDomain: 'env.example.com', publicIp: '203.0.113.7', acmeEmail: 'ops@example.org', sources: { rootDomain: 'environment', acmeEmail: 'settings' } });

  const events = (await s.call('GET', '/api/events?stream=settings-installation&limit=1000')).body.events as { type: string; data: unknown }[];
  t.ok(events.some((e) => e.type === 'GeneralSettingsChanged' && JSON.stringify(e.data).includes('198.51.100.20')), 'each change is an event in the audit history');
});

t.test('a PATCH that changes nothing appends nothing', async (t) => {
  const count = async () => (await s.app.store.readStream('settings-installation')).length;
  await s.call('PATCH', '/api/settings', { body: { acmeEmail: 'same@example.org' } });
  const n = await count();
  const again = await s.call('PATCH', '/api/settings', { body: { acmeEmail: 'same@example.org' } });
  t.equal(again.status, 200);
  t.equal(await count(), n);
});

t.test('bad input is a 400 with the error body and changes nothing', async (t) => {
  const before = await settingsOf();
  for (const body of [
    {},
    { publicIp: '300.1.1.1' },
    { rootDomain: 'not a domain' },
    { acmeEmail: 'nobody' },
    { acmeDirectoryUrl: 'http://insecure.example.com/dir' },
    { httpsEnabled: 'yes' },
    { apiDomain: 'not a domain' },
    { apiDomain: 'https://api.example.com' },
    { somethingElse: true },
  ]) {
    const r = await s.call('PATCH', '/api/settings', { body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(r.body, { error: { code: 'validation_failed', message: String } }, JSON.stringify(body));
  }
  t.same(await settingsOf(), before);
});

t.test('any key reads the settings; only an all-project write key changes them', async (t) => {
  const p = await createProject(s, 'Scoped');
  const reader = await createKey(s, 'read', null);
  const scopedWriter = await createKey(s, 'write', [p.id]);
  t.equal((await s.call('GET', '/api/settings', { key: reader.secret })).status, 200);
  t.equal((await s.call('GET', '/api/settings', { key: scopedWriter.secret })).status, 200);
  for (const key of [reader.secret, scopedWriter.secret]) {
    for (const [method, path, body] of [
      ['PATCH', '/api/settings', { httpsEnabled: true }],
      ['PUT', '/api/settings/dns-providers/cloudflare', { apiToken: 'x' }],
      ['DELETE', '/api/settings/dns-providers/cloudflare', undefined],
      ['PUT', '/api/settings/ai-providers/openai', {}],
      ['DELETE', '/api/settings/ai-providers/openai', undefined],
    ] as const) {
      const r = await s.call(method, path, { key, ...(body ? { body } : {}) });
      t.equal(r.status, 403, `${method} ${path}`);
      t.match(r.body, { error: { code: 'forbidden' } });
    }
  }
  t.equal((await settingsOf()).httpsEnabled, false, 'nothing changed');
});

t.test('providers: every one is listed, unknown ids are 404, builtin is always there', async (t) => {
  const settings = await settingsOf();
  t.same(settings.dnsProviders.map((p: { id: string; connected: boolean }) => [p.id, p.connected]), [['cloudflare', false], ['digitalocean', false], ['powerdns', false]]);
  t.same(settings.aiProviders.map((p: { id: string; connected: boolean }) => [p.id, p.connected]), [['openai', false], ['anthropic', false], ['builtin', true]]);
  t.equal((await s.call('PUT', '/api/settings/dns-providers/route53', { body: {} })).status, 404);
  t.equal((await s.call('PUT', '/api/settings/ai-providers/gemini', { body: {} })).status, 404);
  t.equal((await s.call('DELETE', '/api/settings/dns-providers/provider_a')).status, 404, 'an alias of a provider that is not connected');
  t.equal((await s.call('DELETE', '/api/settings/ai-providers/builtin')).status, 400);
});

t.test('a project-scoped key does not see where the storage, the AI providers and PowerDNS are', async (t) => {
  const ai = await startFakeOpenAi();
  const s3 = await startS3Server();
  t.teardown(async () => {
    await s.call('PATCH', '/api/settings', { body: { allowedDestinations: null } });
    await ai.close();
    await s3.stop();
  });
  t.equal((await s.call('PATCH', '/api/settings', { body: { allowedDestinations: [destinationOf(ai.origin), destinationOf(s3.endpoint)] } })).status, 200);
  t.equal((await s.call('PUT', '/api/settings/ai-providers/openai', { body: { baseUrl: `${ai.origin}/v1`, apiKey: 'sk-test' } })).status, 200);
  const storage = { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true };
  const connected = await s.call('PUT', '/api/settings/remote-storage', { body: storage });
  t.equal(connected.status, 200, JSON.stringify(connected.body));

  const admin = await settingsOf();
  t.match(admin.remoteStorage, { connected: true, endpoint: s3.endpoint, bucket: s3.bucket, accessKeyId: s3.accessKeyId });
  t.match(admin.aiProviders.find((p: { id: string }) => p.id === 'openai'), { connected: true, baseUrl: `${ai.origin}/v1` });

  const p = await createProject(s, 'Scoped Settings');
  for (const access of ['read', 'write'] as const) {
    const scoped = await createKey(s, access, [p.id]);
    const seen = await settingsOf(scoped.secret);
    t.same(seen.remoteStorage, { connected: true }, `${access}: only that a storage is connected`);
    t.notOk('allowedDestinations' in seen, `${access}: not which inner destinations are open`);
    t.same(seen.aiProviders.find((p: { id: string }) => p.id === 'openai'), { id: 'openai', name: admin.aiProviders.find((p: { id: string }) => p.id === 'openai').name, connected: true }, `${access}: only that the provider is connected`);
    const text = JSON.stringify(seen);
    for (const secretish of [s3.endpoint, s3.bucket, s3.accessKeyId, ai.origin]) t.notOk(text.includes(secretish), `${access}: ${secretish} appears nowhere`);
  }
});

t.test('allowedDestinations and denyPrivateDestinations: validated, canonical, from the environment by default', async (t) => {
  const before = await settingsOf();
  t.match(before, { allowedDestinations: [], denyPrivateDestinations: false, sources: { allowedDestinations: 'environment', denyPrivateDestinations: 'environment' } });
  const patched = await s.call('PATCH', '/api/settings', { body: { allowedDestinations: ['127.0.0.1:3000', '[::1]:8080', '10.0.0.0/8', ' ::1 ', '127.0.0.1:3000'], denyPrivateDestinations: true } });
  t.equal(patched.status, 200, JSON.stringify(patched.body));
  t.match(patched.body.settings, { allowedDestinations: ['127.0.0.1:3000', '[::1]:8080', '10.0.0.0/8', '::1'], denyPrivateDestinations: true, sources: { allowedDestinations: 'settings' } });
  const count = async () => (await s.app.store.readStream('settings-installation')).length;
  const n = await count();
  t.equal((await s.call('PATCH', '/api/settings', { body: { allowedDestinations: ['127.0.0.1:3000', '[::1]:8080', '10.0.0.0/8', '::1'] } })).status, 200);
  t.equal(await count(), n, 'the same list again appends nothing');

  for (const entry of ['localhost:3000', 'example.com', '127.0.0.1:99999', '10.0.0.0/40', 'http://127.0.0.1/']) {
    const r = await s.call('PATCH', '/api/settings', { body: { allowedDestinations: [entry] } });
    t.equal(r.status, 400, entry);
    t.match(r.body, { error: { code: 'validation_failed', details: [{ path: 'allowedDestinations.0' }] } }, entry);
  }
  t.equal((await s.call('PATCH', '/api/settings', { body: { allowedDestinations: '127.0.0.1' } })).status, 400, 'a list, not a string');

  const p = await createProject(s, 'Destinations');
  const scopedWriter = await createKey(s, 'write', [p.id]);
  const refused = await s.call('PATCH', '/api/settings', { key: scopedWriter.secret, body: { allowedDestinations: ['127.0.0.0/8'] } });
  t.equal(refused.status, 403, 'a project-scoped key cannot open destinations');
  t.match(refused.body, { error: { code: 'forbidden' } });

  const reset = await s.call('PATCH', '/api/settings', { body: { allowedDestinations: null, denyPrivateDestinations: null } });
  t.match(reset.body.settings, { allowedDestinations: [], denyPrivateDestinations: false, sources: { allowedDestinations: 'environment' } });
});

t.test('a setting change applies to the next connection, without a restart', async (t) => {
  const p = await createProject(s, 'Git here');
  const body = { name: 'here', repoUrl: 'http://127.0.0.1:4567/acme/here.git', branch: 'main' };
  const refused = await s.call('POST', `/api/projects/${p.id}/services`, { body });
  t.equal(refused.status, 400);
  t.match(refused.body, { error: { code: 'forbidden_destination', details: [{ path: 'repoUrl' }] } });
  t.match(refused.body.error.message, /127\.0\.0\.1:4567 is a loopback address/);
  t.equal((await s.call('PATCH', '/api/settings', { body: { allowedDestinations: ['127.0.0.1:4567'] } })).status, 200);
  t.equal((await s.call('POST', `/api/projects/${p.id}/services`, { body })).status, 200, 'allowed now');
  t.equal((await s.call('POST', `/api/projects/${p.id}/services`, { body: { ...body, name: 'other', repoUrl: 'http://127.0.0.1:4568/acme/here.git' } })).status, 400, 'only that port');
  await s.call('PATCH', '/api/settings', { body: { allowedDestinations: null } });
  t.equal((await s.call('POST', `/api/projects/${p.id}/services`, { body: { ...body, name: 'again' } })).status, 400, 'refused again once the setting is gone');
});

t.test('the environment gives the defaults of the destination settings', async (t) => {
  const other = await startTestServer({ SLIPWAY_ALLOW_DESTINATIONS: '127.0.0.1:4567, [::1]:8080', SLIPWAY_DENY_PRIVATE_DESTINATIONS: 'on' });
  t.teardown(() => other.close());
  t.match((await other.call('GET', '/api/settings')).body.settings, { allowedDestinations: ['127.0.0.1:4567', '[::1]:8080'], denyPrivateDestinations: true });
  const p = await createProject(other, 'Env');
  t.equal((await other.call('POST', `/api/projects/${p.id}/services`, { body: { name: 'lan', repoUrl: 'http://10.1.2.3/acme/x.git' } })).status, 400, 'a private address, denied');
  t.equal((await other.call('POST', `/api/projects/${p.id}/services`, { body: { name: 'here', repoUrl: 'http://127.0.0.1:4567/acme/x.git' } })).status, 200);
  t.throws(() => loadConfig({ SLIPWAY_ALLOW_DESTINATIONS: '127.0.0.1:3000,localhost' }), /SLIPWAY_ALLOW_DESTINATIONS/, 'a bad entry stops the start');
  t.throws(() => loadConfig({ SLIPWAY_GIT_BASE_URL: 'http://127.0.0.1:2019/config?' }), /SLIPWAY_GIT_BASE_URL/, 'a base URL with a query stops the start');
});

t.test('providers and storage on loopback: 400 forbidden_destination before any request; a base URL with ? or # is invalid', async (t) => {
  const requests: string[] = [];
  const inside = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(500, { 'content-type': 'text/html' }).end('<html>internal-secret</html>');
  });
  await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => inside.close(() => resolve())));
  const base = `http://127.0.0.1:${(inside.address() as AddressInfo).port}`;
  const attempts: [string, Record<string, unknown>, string][] = [
    ['/api/settings/ai-providers/openai', { baseUrl: `${base}/v1`, apiKey: 'k' }, 'baseUrl'],
    ['/api/settings/ai-providers/anthropic', { baseUrl: base.replace('127.0.0.1', 'localhost'), apiKey: 'k' }, 'baseUrl'],
    ['/api/settings/dns-providers/powerdns', { baseUrl: base, apiKey: 'k' }, 'baseUrl'],
    ['/api/settings/remote-storage', { endpoint: base, region: 'us-east-1', bucket: 'backups', accessKeyId: 'a', secretAccessKey: 'b', forcePathStyle: true }, 'endpoint'],
  ];
  for (const [path, body, field] of attempts) {
    const r = await s.call('PUT', path, { body });
    assertError(t, r, 400, 'forbidden_destination', path);
    t.same(detailPaths(r), [field], `${path}: details name ${field}`);
    t.notMatch(JSON.stringify(r.body), /internal-secret/);
  }
  t.same(requests, [], 'nothing reached the server on loopback');
  for (const [path, body] of [
    ['/api/settings/ai-providers/openai', { baseUrl: `${base}/config/?` }],
    ['/api/settings/ai-providers/openai', { baseUrl: `${base}/load#` }],
    ['/api/settings/dns-providers/powerdns', { baseUrl: `${base}/config?x=`, apiKey: 'k' }],
    ['/api/settings/remote-storage', { endpoint: `${base}/?`, region: 'r', bucket: 'backups', accessKeyId: 'a', secretAccessKey: 'b' }],
  ] as const) {
    const r = await s.call('PUT', path, { body });
    t.equal(r.status, 400, path);
    t.equal(r.body.error?.code, 'validation_failed', `${path}: ${JSON.stringify(body)}`);
  }
  t.equal((await s.call('PATCH', '/api/settings', { body: { allowedDestinations: [destinationOf(base)] } })).status, 200);
  const allowed = await s.call('PUT', '/api/settings/ai-providers/openai', { body: { baseUrl: `${base}/v1`, apiKey: 'k' } });
  t.equal(allowed.status, 400, 'allowed, it is asked, and its error page is not repeated');
  t.equal(allowed.body.error?.code, 'ai_provider_failed');
  t.match(allowed.body.error?.message, /HTTP 500 Internal Server Error$/);
  t.notMatch(JSON.stringify(allowed.body), /internal-secret|<html/);
  t.same(requests, ['GET /v1/models']);
  await s.call('PATCH', '/api/settings', { body: { allowedDestinations: null } });
});
