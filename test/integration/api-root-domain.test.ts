import t from 'tap';
import { assertError, detailPaths } from '../helpers/http-errors.js';
import { createProject, createService } from '../helpers/http-resources.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// README: with SLIPWAY_ROOT_DOMAIN, database services without databasePublicHostname get
// <service-slug>.<root domain>; hostnames are unique across the platform, database public hostnames included.
// No deployment and no proxy answer is looked at here: a plain server (proxy off) is enough.
let s: TestServer;
t.before(async () => {
  s = await startTestServer({ SLIPWAY_ROOT_DOMAIN: 'example.net' });
});
t.teardown(() => s.close());

const database = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  repoFullName: 'database:postgres',
  repoUrl: 'database',
  branch: 'main',
  internalPort: 5432,
  databasePublicEnabled: false,
  env: [],
  ...extra,
});

t.test('a database service without a hostname gets <service-slug>.<root domain>', async (t) => {
  const p = await createProject(s, 'Shop');
  const db = await createService(s, p.id, database('Main DB'));
  t.equal(db.slug, 'main-db');
  t.equal(db.databasePublicHostname, 'main-db.example.net', 'from the slug, not the name');
  const open = await createService(s, p.id, database('Reports', { databasePublicEnabled: true }));
  t.match(open, { databasePublicEnabled: true, databasePublicHostname: 'reports.example.net' }, 'whether public or not');
  const cache = await createService(s, p.id, { ...database('cache'), repoFullName: 'database:redis', internalPort: 6379 });
  t.equal(cache.databasePublicHostname, 'cache.example.net', 'every engine');
  t.equal((await s.call('GET', `/api/services/${db.id}/overview`)).body.service.databasePublicHostname, 'main-db.example.net', 'the overview says the same');

  const web = await createService(s, p.id, { name: 'web', repoFullName: 'acme/web', branch: 'main' });
  const image = await createService(s, p.id, { name: 'ui', repoUrl: 'docker-image', dockerImage: 'nginx:1.27', branch: 'main', internalPort: 80, env: [] });
  t.equal(web.databasePublicHostname, null, 'source services get none');
  t.equal(image.databasePublicHostname, null, 'image services get none');
});

t.test('an explicit databasePublicHostname wins, normalised like any hostname', async (t) => {
  const p = await createProject(s, 'Explicit');
  const db = await createService(s, p.id, database('ledger', { databasePublicHostname: 'PG.Ledger.ORG.' }));
  t.equal(db.databasePublicHostname, 'pg.ledger.org');
  const bad = await s.call('POST', `/api/projects/${p.id}/services`, { body: database('bad', { databasePublicHostname: '10.0.0.1' }) });
  assertError(t, bad, 400, 'validation_failed', 'an IP address as public hostname');
  t.same(detailPaths(bad), ['databasePublicHostname']);
  // The explicit hostname held; the generated one for the same slug is free.
  const other = await createProject(s, 'Explicit 2');
  t.equal((await createService(s, other.id, database('ledger'))).databasePublicHostname, 'ledger.example.net');
});

t.test('public hostnames share one namespace with domains', async (t) => {
  const p = await createProject(s, 'Orders');
  const web = await createService(s, p.id, { name: 'web', repoFullName: 'acme/web', branch: 'main' });
  t.equal((await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname: 'orders.example.net' } })).status, 200);

  const orders = await createService(s, p.id, database('orders'));
  t.equal(orders.databasePublicHostname, 'orders-2.example.net', 'a hostname a domain holds is skipped');

  const elsewhere = await createProject(s, 'Orders elsewhere');
  const twin = await createService(s, elsewhere.id, database('orders'));
  t.equal(twin.databasePublicHostname, 'orders-3.example.net', 'a hostname another database holds is skipped, across projects');

  const clashDomain = await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname: 'orders-2.example.net' } });
  assertError(t, clashDomain, 409, 'conflict', "a domain on a database's public hostname");
  const clashExplicit = await s.call('POST', `/api/projects/${p.id}/services`, { body: database('copy', { databasePublicHostname: 'orders.example.net' }) });
  assertError(t, clashExplicit, 409, 'conflict', "an explicit public hostname a domain holds");
  const clashTwo = await s.call('POST', `/api/projects/${p.id}/services`, { body: database('copy2', { databasePublicHostname: 'Orders-3.example.net' }) });
  assertError(t, clashTwo, 409, 'conflict', "an explicit public hostname another database holds");

  t.equal((await s.call('DELETE', `/api/services/${orders.id}`)).status, 200);
  t.equal((await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname: 'orders-2.example.net' } })).status, 200, 'deleting the database frees its hostname');
});
