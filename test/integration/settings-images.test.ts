import t from 'tap';
import { assertError, detailPaths } from '../helpers/http-errors.js';
import { startTestServer } from '../helpers/test-server.js';

const s = await startTestServer({ SLIPWAY_DB_IMAGE_REDIS: 'slipway/db-redis:bookworm' });
t.teardown(() => s.close());

const settingsOf = async () => (await s.call('GET', '/api/settings')).body.settings;

t.test('image settings: the environment gives the defaults, PATCH wins, null puts the default back', async (t) => {
  t.match(await settingsOf(), {
    packNodeImage: 'node:20-bookworm-slim',
    packRunImage: 'debian:bookworm-slim',
    dbImagePostgres: 'postgres:16',
    dbImageRedis: 'slipway/db-redis:bookworm',
    dbImageMongodb: 'mongo:7',
    dbImageColumnar: 'clickhouse/clickhouse-server:24.8',
    sources: { packNodeImage: 'environment', dbImageRedis: 'environment', dbImagePostgres: 'environment' },
  });

  const patched = await s.call('PATCH', '/api/settings', {
    body: { packNodeImage: 'slipway/runtime-node:bookworm', dbImagePostgres: 'slipway/db-postgres:bookworm', dbImageRedis: 'ghcr.io/acme/redis:7@sha256:' + 'a'.repeat(64) },
  });
  t.equal(patched.status, 200, JSON.stringify(patched.body));
  t.match(patched.body.settings, {
    packNodeImage: 'slipway/runtime-node:bookworm',
    dbImagePostgres: 'slipway/db-postgres:bookworm',
    dbImageRedis: `ghcr.io/acme/redis:7@sha256:${'a'.repeat(64)}`,
    packPythonImage: 'python:3.12-slim-bookworm',
    sources: { packNodeImage: 'settings', dbImagePostgres: 'settings', dbImageRedis: 'settings', packPythonImage: 'environment' },
  });
  t.match(await settingsOf(), { packNodeImage: 'slipway/runtime-node:bookworm', sources: { packNodeImage: 'settings' } }, 'read back');

  const reset = await s.call('PATCH', '/api/settings', { body: { packNodeImage: null, dbImageRedis: null } });
  t.equal(reset.status, 200);
  t.match(reset.body.settings, {
    packNodeImage: 'node:20-bookworm-slim',
    dbImageRedis: 'slipway/db-redis:bookworm',
    dbImagePostgres: 'slipway/db-postgres:bookworm',
    sources: { packNodeImage: 'environment', dbImageRedis: 'environment', dbImagePostgres: 'settings' },
  });
  await s.call('PATCH', '/api/settings', { body: { dbImagePostgres: null } });
});

t.test('a bad image reference is a 400 naming the setting and changes nothing', async (t) => {
  const before = await settingsOf();
  for (const [key, value] of [
    ['packNodeImage', 'Node:20'],
    ['dbImagePostgres', 'postgres:16 --privileged'],
    ['dbImageMysql', ''],
    ['packGoImage', 42],
    ['dbImageColumnar', 'x'.repeat(300)],
    ['dbImageTimeseries', 'https://registry.example.com/timescale'],
  ] as const) {
    const r = await s.call('PATCH', '/api/settings', { body: { [key]: value } });
    assertError(t, r, 400, 'validation_failed', `${key}: ${String(value).slice(0, 40)}`);
    t.same(detailPaths(r), [key]);
  }
  t.same(await settingsOf(), before);
});

t.test('an image on a registry the outbound policy refuses is 400 forbidden_destination until it is allowed', async (t) => {
  const refused = await s.call('PATCH', '/api/settings', { body: { dbImageMysql: '127.0.0.1:5000/mysql:8' } });
  assertError(t, refused, 400, 'forbidden_destination', 'a registry on loopback');
  t.same(detailPaths(refused), ['dbImageMysql']);
  t.equal((await settingsOf()).dbImageMysql, 'mysql:8.4', 'unchanged');
  t.equal((await s.call('PATCH', '/api/settings', { body: { allowedDestinations: ['127.0.0.1:5000'] } })).status, 200);
  const allowed = await s.call('PATCH', '/api/settings', { body: { dbImageMysql: '127.0.0.1:5000/mysql:8' } });
  t.equal(allowed.status, 200, JSON.stringify(allowed.body));
  t.equal(allowed.body.settings.dbImageMysql, '127.0.0.1:5000/mysql:8');
  await s.call('PATCH', '/api/settings', { body: { dbImageMysql: null, allowedDestinations: null } });
});
