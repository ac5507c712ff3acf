import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { startFakeOpenAi } from '../helpers/fake-ai-servers.js';
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
    await ai.close();
    await s3.stop();
  });
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
    t.same(seen.aiProviders.find((p: { id: string }) => p.id === 'openai'), { id: 'openai', name: admin.aiProviders.find((p: { id: string }) => p.id === 'openai').name, connected: true }, `${access}: only that the provider is connected`);
    const text = JSON.stringify(seen);
    for (const secretish of [s3.endpoint, s3.bucket, s3.accessKeyId, ai.origin]) t.notOk(text.includes(secretish), `${access}: ${secretish} appears nowhere`);
  }
});
