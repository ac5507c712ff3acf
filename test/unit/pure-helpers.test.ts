import t from 'tap';
import { initialDatabaseVariables } from '../../commands/service/engines.js';
import { slugify } from '../../commands/shared/slug.js';
import { redactEventData } from '../../projections/audit-redaction.js';
import { literal, sql } from '../../projections/sql-text.js';
import { decodePosition, encodePosition, isPosition } from '../../src/eventstore/position.js';
import { buildCaddyConfig } from '../../src/proxy/caddy-config.js';
import { resolveReferences } from '../../src/variables/references.js';

t.test('slugs', async (t) => {
  t.equal(slugify('My Shop!'), 'my-shop');
  t.equal(slugify('  Ünïcode Café  '), 'unicode-cafe');
  t.equal(slugify('***'), '');
  t.equal(slugify('x'.repeat(100)), 'x'.repeat(48));
});

t.test('positions compare as text in numeric order', async (t) => {
  const a = encodePosition(9n, 99n);
  const b = encodePosition(10n, 1n);
  t.ok(a < b);
  t.same(decodePosition(b), [10n, 1n]);
  t.ok(isPosition(a));
  t.notOk(isPosition('12-3'));
  t.throws(() => decodePosition('nope'));
});

t.test('sql literals escape everything they inline', async (t) => {
  t.equal(literal(null), 'null');
  t.equal(literal(3), '3');
  t.equal(literal(true), 'true');
  t.equal(literal("it's"), "'it''s'");
  t.equal(literal('back\\slash'), "'back\\slash'", 'backslashes are plain with standard strings');
  t.equal(literal(['a']), `'["a"]'::jsonb`);
  t.throws(() => literal(Number.NaN));
  t.equal(sql`select ${"x'); drop table t; --"}`, "select 'x''); drop table t; --'");
});

t.test('references resolve recursively and leave unknown ones', async (t) => {
  const vars: Record<string, Record<string, string>> = {
    db: { USER: 'u', URL: 'pg://${db.USER}@db' },
    loop: { A: '${loop.A}' },
  };
  const lookup = (s: string, k: string) => vars[s]?.[k];
  t.equal(resolveReferences('${db.URL}/x', lookup), 'pg://u@db/x');
  t.equal(resolveReferences('${nope.X} and ${db.MISSING}', lookup), '${nope.X} and ${db.MISSING}');
  t.equal(resolveReferences('plain $HOME ${lower.case}', lookup), 'plain $HOME ${lower.case}');
  t.doesNotThrow(() => resolveReferences('${loop.A}', lookup), 'a cycle stops');
});

t.test('database engines start with their credentials; given values win', async (t) => {
  const vars = initialDatabaseVariables('postgres', 'main-db', [{ key: 'POSTGRES_DB', value: 'shop' }], () => 'S3CRET');
  const map = Object.fromEntries(vars.map((v) => [v.key, v.value]));
  t.same(map, {
    POSTGRES_USER: 'postgres',
    POSTGRES_PASSWORD: 'S3CRET',
    POSTGRES_DB: 'shop',
    DATABASE_URL: 'postgresql://${main-db.POSTGRES_USER}:${main-db.POSTGRES_PASSWORD}@main-db:5432/${main-db.POSTGRES_DB}',
  });
  const keysOf = (engine: Parameters<typeof initialDatabaseVariables>[0]) => initialDatabaseVariables(engine, 'x', [], () => 'p').map((v) => v.key);
  t.same(keysOf('timeseries'), ['POSTGRES_USER', 'POSTGRES_PASSWORD', 'POSTGRES_DB', 'DATABASE_URL']);
  t.same(keysOf('mysql'), ['MYSQL_ROOT_PASSWORD', 'MYSQL_DATABASE', 'MYSQL_USER', 'MYSQL_PASSWORD', 'DATABASE_URL']);
  t.same(keysOf('redis'), ['REDIS_PASSWORD', 'REDIS_URL']);
  t.same(keysOf('mongodb'), ['MONGO_INITDB_ROOT_USERNAME', 'MONGO_INITDB_ROOT_PASSWORD', 'MONGO_URL']);
  t.same(keysOf('columnar'), ['CLICKHOUSE_USER', 'CLICKHOUSE_PASSWORD', 'CLICKHOUSE_DB', 'CLICKHOUSE_URL']);
  t.equal(
    initialDatabaseVariables('redis', 'cache', [], () => 'p').find((v) => v.key === 'REDIS_URL')?.value,
    'redis://default:${cache.REDIS_PASSWORD}@cache:6379',
    'the connection variable refers to the credentials',
  );
  const clickhouseDb = (slug: string) => initialDatabaseVariables('columnar', slug, [], () => 'p').find((v) => v.key === 'CLICKHOUSE_DB')?.value;
  t.equal(clickhouseDb('2024-stats'), 'db_2024_stats', 'the official ClickHouse entrypoint reads an unquoted name: no leading digit');
  t.equal(clickhouseDb('stats-2024'), 'stats_2024');
});

t.test('audit data hides encrypted values and key hashes', async (t) => {
  t.same(redactEventData({ a: 'enc:v1:agg:iv.tag.ct', secretHash: 'abc', nested: [{ value: 'enc:v1:x:y' }], plain: 'ok' }), {
    a: '[encrypted]',
    secretHash: '[redacted]',
    nested: [{ value: '[encrypted]' }],
    plain: 'ok',
  });
});

t.test('caddy config is a pure function of the routes', async (t) => {
  const settings = { adminListen: '127.0.0.1:2019', httpListen: [':80'] };
  const up = (port: number) => ({ host: '127.0.0.1', port });
  const config = buildCaddyConfig(settings, [
    { id: 's1', hostnames: ['b.example.com', 'a.example.com'], hostPort: 20001, upstream: up(40001) },
    { id: 's2', hostnames: [], hostPort: 20002, upstream: up(40002) },
    { id: 's3', hostnames: ['c.example.com'], hostPort: 20003, upstream: null },
  ]);
  t.same(config, buildCaddyConfig(settings, [
    { id: 's1', hostnames: ['a.example.com', 'b.example.com'], hostPort: 20001, upstream: up(40001) },
    { id: 's2', hostnames: [], hostPort: 20002, upstream: up(40002) },
    { id: 's3', hostnames: ['c.example.com'], hostPort: 20003, upstream: null },
  ]), 'same routes, same config');
  t.equal(config.admin.listen, '127.0.0.1:2019', 'admin stays in every config');
  const servers = config.apps.http.servers as Record<string, { listen: string[]; routes: unknown[] }>;
  const routes = servers.slipway!.routes;
  t.equal(routes.length, 3, 'one route per service with domains plus the catch-all');
  t.match(routes[0], { '@id': 'slipway-s1', match: [{ host: ['a.example.com', 'b.example.com'] }], handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: '127.0.0.1:40001' }] }] });
  t.match(routes[1], { match: [{ host: ['c.example.com'] }], handle: [{ handler: 'static_response', status_code: 503 }] }, 'a domain with nothing deployed answers 503');
  t.match(routes[2], { handle: [{ handler: 'static_response', status_code: 404 }] });
  t.same(Object.keys(servers).sort(), ['port-20001', 'port-20002', 'slipway'], 'Caddy listens on the host port of each deployed web service');
  t.match(servers['port-20002'], {
    listen: [':20002'],
    routes: [{ match: [{ header: { 'X-Slipway-Proxied': ['1'] } }], handle: [{ status_code: 502 }] }, { handle: [{ upstreams: [{ dial: '127.0.0.1:40002' }] }] }],
  }, 'a request forwarded back to Caddy is answered, never looped');
  t.throws(() => buildCaddyConfig(settings, [{ id: 'x', hostnames: ['a.b.c'], hostPort: 20000, upstream: up(70000) }]), RangeError);
});

t.test('with HTTPS the domains move to the HTTPS port under an ACME issuer; host ports stay plain HTTP', async (t) => {
  const https = { httpPort: 80, httpsPort: 443, acmeDirectoryUrl: 'https://ca.example/dir', acmeEmail: 'ops@example.com', trustedRootsPemFiles: ['/etc/ca.pem'] };
  const routes = [{ id: 's1', hostnames: ['a.example.com'], hostPort: 20001, upstream: { host: '127.0.0.1', port: 40001 } }];
  const config = buildCaddyConfig({ adminListen: '127.0.0.1:2019', httpListen: [':80'], https }, routes);
  const servers = config.apps.http.servers as Record<string, { listen: string[]; automatic_https?: unknown }>;
  t.same(servers.slipway!.listen, [':443']);
  t.same(servers.slipway!.automatic_https, { disable_redirects: true }, 'automatic HTTPS on for the domains; the redirect is ours');
  const redirect = (port: number) => {
    const servers = buildCaddyConfig({ adminListen: '127.0.0.1:2019', httpListen: [':80'], https: { ...https, httpsPort: port } }, routes).apps.http.servers as Record<string, { listen: string[]; routes: unknown[] }>;
    return servers['slipway-http']!;
  };
  t.same(redirect(443).listen, [':80'], 'plain HTTP on the HTTP port');
  t.match(redirect(443).routes, [
    { match: [{ host: ['a.example.com'] }], handle: [{ handler: 'static_response', status_code: 308, headers: { Location: ['https://{http.request.host}{http.request.uri}'] } }] },
    { handle: [{ status_code: 404 }] },
  ], 'is redirected to HTTPS');
  t.match(redirect(8443).routes, [{ handle: [{ headers: { Location: ['https://{http.request.host}:8443{http.request.uri}'] } }] }], 'on the HTTPS port, named when it is not 443');
  t.same(servers['port-20001']!.automatic_https, { disable: true }, 'never for a host port');
  t.match(config.apps, { http: { http_port: 80, https_port: 443 } });
  t.same(config.apps.tls, {
    automation: { policies: [{ issuers: [{ module: 'acme', ca: 'https://ca.example/dir', email: 'ops@example.com', trusted_roots_pem_files: ['/etc/ca.pem'], challenges: { 'tls-alpn': { disabled: true } } }] }] },
  });
  const plain = buildCaddyConfig({ adminListen: '127.0.0.1:2019', httpListen: [':80'], https: null }, routes);
  t.equal(plain.apps.tls, undefined, 'HTTP only: no TLS app');
  t.same((plain.apps.http.servers as Record<string, { listen: string[] }>).slipway!.listen, [':80']);
});
