import type { Test } from 'tap';
import { waitForDeployment } from './deploy.js';
import { assertError, detailPaths } from './http-errors.js';
import { createKey, createProject, createService } from './http-resources.js';
import { badInputTests } from './http-suite-bad-input.js';
import { liveTests } from './http-suite-live.js';
import type { TestServer } from './test-server.js';

export { createKey, createProject, createService } from './http-resources.js';

/** Caddy's real answer when it accepted the configuration (the suite's server runs a real Caddy). */
const CADDY_LOADED = { ok: true, detail: 'caddy configuration loaded' };

const ids = (list: { id: string }[]) => list.map((x) => x.id).sort();

/** The management API contract, run against whichever database `start` gives (with Caddy and Docker on). */
export function apiSuite(t: Test, start: () => Promise<TestServer>) {
  let s: TestServer;
  t.before(async () => {
    s = await start();
  });
  t.teardown(() => s.close());

  t.test('projects: create, list, get by slug, rename keeps the slug, update, delete', async (t) => {
    const created = await s.call('POST', '/api/projects', { body: { name: 'Acme Shop', description: 'the shop' } });
    t.equal(created.status, 200);
    const p = created.body.project;
    t.match(p, { name: 'Acme Shop', slug: 'acme-shop', description: 'the shop', status: 'idle', serviceCount: 0, services: [] });
    t.match(p.lastUpdatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const twin = await createProject(s, 'Acme Shop');
    t.equal(twin.slug, 'acme-shop-2', 'slugs stay unique');

    const list = (await s.call('GET', '/api/projects')).body.projects as { id: string }[];
    t.ok(list.some((x) => x.id === p.id) && list.some((x) => x.id === twin.id), 'both are listed');

    const bySlug = await s.call('GET', '/api/projects/acme-shop');
    t.equal(bySlug.body.project.id, p.id);
    t.equal((await s.call('GET', `/api/projects/${p.id}`)).body.project.slug, 'acme-shop', 'an id works too');

    const updated = await s.call('PATCH', `/api/projects/${p.id}`, { body: { description: 'new words' } });
    t.equal(updated.status, 200);
    t.match(updated.body.project, { name: 'Acme Shop', description: 'new words', slug: 'acme-shop' });
    t.ok(Date.parse(updated.body.project.lastUpdatedAt) > Date.parse(p.lastUpdatedAt), 'lastUpdatedAt moved');

    const renamed = await s.call('PATCH', `/api/projects/${p.id}`, { body: { name: 'Acme Store' } });
    t.equal(renamed.status, 200);
    t.match(renamed.body.project, { id: p.id, name: 'Acme Store', slug: 'acme-shop', description: 'new words' }, 'renaming keeps the slug');
    t.match((await s.call('GET', '/api/projects/acme-shop')).body.project, { id: p.id, name: 'Acme Store' }, 'the old slug still finds it');
    assertError(t, await s.call('GET', '/api/projects/acme-store'), 404, 'not_found', 'the new name gives no slug');
    t.equal((await createProject(s, 'Acme Shop')).slug, 'acme-shop-3', 'the kept slug stays taken');

    const svc = await createService(s, p.id, { name: 'api', repoFullName: 'acme/api', branch: 'main' });
    t.equal((await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'TOKEN', value: 'x' } })).status, 200);
    t.equal((await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'api.acme.test' } })).status, 200);
    const removed = await s.call('DELETE', `/api/projects/${p.id}`);
    t.equal(removed.status, 200);
    t.same(removed.body, { ok: true, proxy: CADDY_LOADED }, 'deleted; Caddy loaded the configuration');
    assertError(t, await s.call('GET', '/api/projects/acme-shop'), 404, 'not_found', 'the deleted project');
    assertError(t, await s.call('GET', `/api/services/${svc.id}/overview`), 404, 'not_found', 'services go with the project');
    assertError(t, await s.call('DELETE', `/api/projects/${p.id}`), 404, 'not_found', 'deleting it again');

    const again = await createProject(s, 'Acme Shop');
    t.equal(again.slug, 'acme-shop', 'a deleted project frees its slug');
    const other = await createService(s, again.id, { name: 'api2', repoFullName: 'acme/api', branch: 'main' });
    const domain = await s.call('POST', `/api/services/${other.id}/domains`, { body: { hostname: 'api.acme.test' } });
    t.equal(domain.status, 200, 'and its services free their hostnames');
  });

  liveTests(t, () => s);

  t.test('services: the four create variants, workers and static sites', async (t) => {
    const p = await createProject(s, 'Variants');
    const hosted = await createService(s, p.id, {
      name: 'Web App',
      repoFullName: 'acme/web',
      branch: 'main',
      rootDir: 'apps/web/',
      buildCommand: 'npm run build',
      startCommand: 'npm start',
      dockerfilePath: 'docker/Dockerfile',
      runtimeMode: 'web',
      internalPort: 8080,
      gitToken: 'ghp_abcdefghijklmnop',
      env: [{ key: 'NODE_ENV', value: 'production' }],
    });
    t.match(hosted, {
      name: 'Web App',
      slug: 'web-app',
      repoFullName: 'acme/web',
      repoUrl: /\/acme\/web\.git$/,
      dockerImage: null,
      rootDir: 'apps/web',
      hasGitToken: true,
      buildMethod: 'auto',
      detectedBuildMethod: null,
      dockerfilePath: 'docker/Dockerfile',
      internalPort: 8080,
      status: 'idle',
      lastDeployedAt: null,
      staticOutput: null,
      framework: null,
      databasePublicHostname: null,
    });
    t.notOk('gitToken' in hosted, 'the token is never returned');
    t.equal(hosted.localUrl, `http://localhost:${hosted.hostPort}`);
    t.equal(hosted.primaryUrl, hosted.localUrl);

    const direct = await createService(s, p.id, { name: 'direct', repoFullName: null, repoUrl: 'https://git.example.com/x/y.git', branch: 'dev', buildMethod: 'packbuilder' });
    t.match(direct, { repoFullName: null, repoUrl: 'https://git.example.com/x/y.git', branch: 'dev', buildMethod: 'packbuilder', hasGitToken: false });

    const image = await createService(s, p.id, { name: 'cache-ui', repoUrl: 'docker-image', dockerImage: 'nginx:1.27', branch: 'main', runtimeMode: 'web', internalPort: 80, env: [] });
    t.match(image, { repoFullName: 'image:nginx:1.27', repoUrl: 'docker-image', dockerImage: 'nginx:1.27', internalPort: 80 });

    const engines = { postgres: 5432, timeseries: 5432, mysql: 3306, redis: 6379, mongodb: 27017, columnar: 8123 };
    for (const [engine, port] of Object.entries(engines)) {
      const db = await createService(s, p.id, {
        name: `db-${engine}`,
        repoFullName: `database:${engine}`,
        repoUrl: 'database',
        branch: 'main',
        internalPort: port,
        databasePublicEnabled: engine === 'postgres',
        postgresLogicalReplicationEnabled: engine === 'postgres',
        env: engine === 'postgres' ? [{ key: 'POSTGRES_USER', value: 'shop' }] : [],
      });
      t.match(db, { repoFullName: `database:${engine}`, repoUrl: 'database', internalPort: port, status: 'idle', databasePublicHostname: null }, `${engine}: no root domain, no public hostname`);
    }

    const ports = new Set([hosted.hostPort, direct.hostPort, image.hostPort]);
    t.equal(ports.size, 3, 'host ports are unique');

    const worker = await createService(s, p.id, { name: 'jobs', repoFullName: 'acme/jobs', branch: 'main', runtimeMode: 'worker' });
    t.equal(worker.runtimeMode, 'worker');
    t.equal(worker.localUrl, '');
    const refused = await s.call('POST', `/api/services/${worker.id}/domains`, { body: { hostname: 'jobs.acme.test' } });
    assertError(t, refused, 400, 'validation_failed', 'workers refuse domains');

    const site = await createService(s, p.id, { name: 'docs', repoFullName: 'acme/docs', branch: 'main', runtimeMode: 'static' });
    t.match(site, { runtimeMode: 'static', internalPort: 8080 });

    const dup = await s.call('POST', `/api/projects/${p.id}/services`, { body: { name: 'web app', repoFullName: 'acme/x', branch: 'main' } });
    assertError(t, dup, 409, 'conflict', 'service names are unique within a project');
    for (const [label, body, path] of [
      ['a credential in the Git URL', { name: 'cred', repoUrl: 'https://user:pw@git.example.com/x/y.git', branch: 'main' }, 'repoUrl'],
      ['an unknown engine', { name: 'odd', repoFullName: 'database:oracle', repoUrl: 'database', branch: 'main' }, 'repoFullName'],
      ['a rootDir outside the repository', { name: 'up', repoFullName: 'acme/up', branch: 'main', rootDir: '../x' }, 'rootDir'],
    ] as const) {
      const r = await s.call('POST', `/api/projects/${p.id}/services`, { body });
      assertError(t, r, 400, 'validation_failed', label);
      t.ok(detailPaths(r).includes(path), `${label}: details name ${path}`);
    }

    const listed = (await s.call('GET', '/api/projects/variants')).body.project;
    t.equal(listed.serviceCount, 11);
    t.equal(listed.services.length, 11);
  });

  t.test('database services get credentials and suggestions', async (t) => {
    const p = await createProject(s, 'Data');
    const db = await createService(s, p.id, { name: 'main-db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: false, env: [{ key: 'POSTGRES_DB', value: 'shop' }] });
    const cache = await createService(s, p.id, { name: 'cache', repoFullName: 'database:redis', repoUrl: 'database', branch: 'main', internalPort: 1234, databasePublicEnabled: false, env: [] });
    const app = await createService(s, p.id, { name: 'app', repoFullName: 'acme/app', branch: 'main', env: [{ key: 'DATABASE_URL', value: '${main-db.DATABASE_URL}' }, { key: 'MISSING', value: '${nope.X}' }] });
    t.match(cache, { repoFullName: 'database:redis', repoUrl: 'database', internalPort: 6379, runtimeMode: 'web', localUrl: `redis://localhost:${cache.hostPort}` }, "the engine's port, whatever is sent");

    const overview = (await s.call('GET', `/api/services/${db.id}/overview`)).body;
    const vars = Object.fromEntries(overview.env.map((e: { key: string; value: string }) => [e.key, e]));
    t.same(Object.keys(vars).sort(), ['DATABASE_URL', 'POSTGRES_DB', 'POSTGRES_PASSWORD', 'POSTGRES_USER']);
    t.equal(vars.POSTGRES_DB.value, 'shop', 'given variables win');
    t.equal(vars.POSTGRES_USER.value, 'postgres');
    t.ok(vars.POSTGRES_PASSWORD.value.length >= 16, 'a generated password');
    t.equal(vars.DATABASE_URL.resolvedValue, `postgresql://postgres:${vars.POSTGRES_PASSWORD.value}@main-db:5432/shop`);

    const cacheEnv = (await s.call('GET', `/api/services/${cache.id}/overview`)).body.env;
    const cacheVars = Object.fromEntries(cacheEnv.map((e: { key: string; value: string; resolvedValue: string }) => [e.key, e]));
    t.same(Object.keys(cacheVars).sort(), ['REDIS_PASSWORD', 'REDIS_URL']);
    t.equal(cacheVars.REDIS_URL.resolvedValue, `redis://default:${cacheVars.REDIS_PASSWORD.value}@cache:6379`);

    const appEnv = (await s.call('GET', `/api/services/${app.id}/overview`)).body.env;
    const url = appEnv.find((e: { key: string }) => e.key === 'DATABASE_URL');
    t.equal(url.value, '${main-db.DATABASE_URL}');
    t.equal(url.resolvedValue, vars.DATABASE_URL.resolvedValue, 'references resolve across services');
    t.equal(appEnv.find((e: { key: string }) => e.key === 'MISSING').resolvedValue, '${nope.X}', 'unknown references stay unresolved');

    const suggestions = (await s.call('GET', `/api/projects/${p.id}/database-variable-suggestions`)).body.suggestions;
    t.same(
      suggestions.map((x: { key: string; value: string }) => [x.key, x.value]),
      [
        ['DATABASE_URL', '${main-db.DATABASE_URL}'],
        ['REDIS_URL', '${cache.REDIS_URL}'],
      ],
    );
    const keys = (await s.call('GET', `/api/services/${app.id}/suggestion-keys`)).body;
    t.same(
      keys.suggestions.map((x: { key: string }) => x.key).sort(),
      ['PORT', 'cache.REDIS_PASSWORD', 'cache.REDIS_URL', 'main-db.DATABASE_URL', 'main-db.POSTGRES_DB', 'main-db.POSTGRES_PASSWORD', 'main-db.POSTGRES_USER'],
    );
    t.same(keys.databaseVariables.map((x: { key: string; value: string }) => [x.key, x.value]), [
      ['DATABASE_URL', '${main-db.DATABASE_URL}'],
      ['REDIS_URL', '${cache.REDIS_URL}'],
    ]);
  });

  t.test('environment variables: upsert by key, delete, key rule', async (t) => {
    const p = await createProject(s, 'Env');
    const svc = await createService(s, p.id, { name: 'api', repoFullName: 'acme/api', branch: 'main' });
    t.same((await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'API_KEY', value: 'one' } })).body, { ok: true });
    t.same((await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'API_KEY', value: 'two' } })).body, { ok: true });
    t.same((await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'EMPTY', value: '' } })).body, { ok: true });
    let env = (await s.call('GET', `/api/services/${svc.id}/overview`)).body.env;
    t.same(env.map((e: { key: string }) => e.key).sort(), ['API_KEY', 'EMPTY'], 'upsert keeps one variable per key');
    const apiKey = env.find((e: { key: string }) => e.key === 'API_KEY');
    t.match(apiKey, { value: 'two', resolvedValue: 'two', hasValue: true });
    t.equal(env.find((e: { key: string }) => e.key === 'EMPTY').hasValue, false);

    for (const key of ['lower', '1ABC', 'A-B', '', 'A B']) {
      const bad = await s.call('POST', `/api/services/${svc.id}/env`, { body: { key, value: 'v' } });
      assertError(t, bad, 400, 'validation_failed', `key ${JSON.stringify(key)} refused`);
      t.same(detailPaths(bad), ['key'], `key ${JSON.stringify(key)}: the detail names the key`);
    }
    const tooLong = await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'BIG', value: 'x'.repeat(65_537) } });
    assertError(t, tooLong, 400, 'validation_failed', 'a value over 64 KiB');
    t.same(detailPaths(tooLong), ['value']);
    t.same((await s.call('DELETE', `/api/services/${svc.id}/env/${apiKey.id}`)).body, { ok: true });
    assertError(t, await s.call('DELETE', `/api/services/${svc.id}/env/${apiKey.id}`), 404, 'not_found', 'a deleted variable');
    env = (await s.call('GET', `/api/services/${svc.id}/overview`)).body.env;
    t.same(env.map((e: { key: string }) => e.key), ['EMPTY']);
  });

  t.test('domains: add, change, delete, unique across the platform', async (t) => {
    const p = await createProject(s, 'Domains');
    const a = await createService(s, p.id, { name: 'a', repoFullName: 'acme/a', branch: 'main' });
    const b = await createService(s, p.id, { name: 'b', repoFullName: 'acme/b', branch: 'main' });
    const added = await s.call('POST', `/api/services/${a.id}/domains`, { body: { hostname: 'Shop.Example.COM.' } });
    t.equal(added.status, 200);
    t.same(added.body, { ok: true, proxy: CADDY_LOADED }, 'added; Caddy loaded the configuration');
    let overview = (await s.call('GET', `/api/services/${a.id}/overview`)).body;
    t.match(overview.domains, [{ hostname: 'shop.example.com', status: 'active', serviceId: a.id }]);
    t.equal(overview.domains.length, 1);
    const { httpPort } = (await s.call('GET', '/api/settings')).body.settings.proxy;
    t.equal(overview.service.primaryUrl, httpPort === 80 ? 'http://shop.example.com' : `http://shop.example.com:${httpPort}`, 'with the proxy’s port unless it is 80');
    const domainId = overview.domains[0].id;

    assertError(t, await s.call('POST', `/api/services/${b.id}/domains`, { body: { hostname: 'shop.example.com' } }), 409, 'conflict', 'a hostname another service has');
    assertError(t, await s.call('POST', `/api/services/${a.id}/domains`, { body: { hostname: 'SHOP.example.com' } }), 409, 'conflict', 'a hostname the service has');
    for (const hostname of ['localhost', 'bad_host.com', '-x.com', 'a..b.com', '1.2.3.4', 'x'.repeat(64) + '.com', 'sp ace.com', '*.example.com']) {
      const r = await s.call('POST', `/api/services/${a.id}/domains`, { body: { hostname } });
      assertError(t, r, 400, 'validation_failed', `${hostname} refused`);
      t.same(detailPaths(r), ['hostname']);
    }

    const changed = await s.call('PATCH', `/api/services/${a.id}/domains/${domainId}`, { body: { hostname: 'www.example.com' } });
    t.same(changed.body, { ok: true, proxy: CADDY_LOADED }, 'changed; Caddy loaded the configuration');
    overview = (await s.call('GET', `/api/services/${a.id}/overview`)).body;
    t.same(overview.domains.map((d: { hostname: string }) => d.hostname), ['www.example.com']);
    t.equal((await s.call('POST', `/api/services/${b.id}/domains`, { body: { hostname: 'shop.example.com' } })).status, 200, 'old hostname freed');

    t.same((await s.call('DELETE', `/api/services/${a.id}/domains/${domainId}`)).body, { ok: true, proxy: CADDY_LOADED }, 'domain deleted; Caddy loaded the configuration');
    assertError(t, await s.call('DELETE', `/api/services/${a.id}/domains/${domainId}`), 404, 'not_found', 'a deleted domain');
    assertError(t, await s.call('PATCH', `/api/services/${b.id}/domains/${domainId}`, { body: { hostname: 'q.example.com' } }), 404, 'not_found', 'another service\'s domain id');
    t.equal((await s.call('POST', `/api/services/${b.id}/domains`, { body: { hostname: 'www.example.com' } })).status, 200);

    const patchWorker = await s.call('PATCH', `/api/services/${b.id}`, { body: { runtimeMode: 'worker' } });
    assertError(t, patchWorker, 409, 'conflict', 'a service with domains cannot become a worker');
  });

  t.test('services: patch, transfer, delete', async (t) => {
    const from = await createProject(s, 'From');
    const to = await createProject(s, 'To');
    const svc = await createService(s, from.id, { name: 'mover', repoFullName: 'acme/m', branch: 'main' });
    const patched = await s.call('PATCH', `/api/services/${svc.id}`, {
      body: { branch: 'release', rootDir: 'srv', buildCommand: 'make', startCommand: './run', buildMethod: 'dockerfile', dockerfilePath: 'Dockerfile.prod', runtimeMode: 'web', internalPort: 9000 },
    });
    t.equal(patched.status, 200);
    t.match(patched.body.service, { id: svc.id, projectId: from.id, name: 'mover', rootDir: 'srv', buildCommand: 'make', startCommand: './run', runtimeMode: 'web', internalPort: 9000, branch: 'release', buildMethod: 'dockerfile', dockerfilePath: 'Dockerfile.prod' });
    t.ok(Date.parse(patched.body.service.updatedAt) > Date.parse(svc.updatedAt), 'updatedAt moved');
    for (const [label, body, paths] of [
      ['an empty patch', {}, ['(body)']],
      ['a port out of range', { internalPort: 70000 }, ['internalPort']],
      ['a rootDir outside the repository', { rootDir: '../etc' }, ['rootDir']],
      ['an unknown build method', { buildMethod: 'magic' }, ['buildMethod']],
      ['a bad branch', { branch: 'a..b' }, ['branch']],
    ] as const) {
      const r = await s.call('PATCH', `/api/services/${svc.id}`, { body });
      assertError(t, r, 400, 'validation_failed', label);
      t.same(detailPaths(r), paths, `${label}: details`);
    }

    const moved = await s.call('POST', `/api/services/${svc.id}/transfer`, { body: { targetProjectId: to.id } });
    t.equal(moved.status, 200);
    t.same(moved.body.service, { id: svc.id, projectId: to.id, name: 'mover', slug: 'mover' });
    t.match(moved.body.project, { id: to.id, name: 'To', slug: 'to', serviceCount: 1 });
    t.same(ids(moved.body.project.services), [svc.id]);
    t.same(moved.body.proxy, CADDY_LOADED, 'transferred; Caddy loaded the configuration');
    t.equal((await s.call('GET', '/api/projects/from')).body.project.serviceCount, 0);
    const listed = (await s.call('GET', '/api/projects')).body.projects;
    t.same(listed.find((x: { id: string }) => x.id === from.id).services, [], 'the project list follows the transfer');
    t.same(ids(listed.find((x: { id: string }) => x.id === to.id).services), [svc.id]);
    assertError(t, await s.call('POST', `/api/services/${svc.id}/transfer`, { body: { targetProjectId: to.id } }), 400, 'validation_failed', 'a transfer into its own project');
    assertError(t, await s.call('POST', `/api/services/${svc.id}/transfer`, { body: { targetProjectId: 'nope' } }), 404, 'not_found', 'a transfer into no project');

    await t.test('a transfer that would clash with a service of the same name is a conflict', async (t) => {
      const twin = await createService(s, from.id, { name: 'Mover', repoFullName: 'acme/twin', branch: 'main' });
      t.equal(twin.slug, 'mover');
      const clash = await s.call('POST', `/api/services/${twin.id}/transfer`, { body: { targetProjectId: to.id } });
      assertError(t, clash, 409, 'conflict', 'the target project has a service named mover');
      t.equal((await s.call('GET', `/api/services/${twin.id}/overview`)).body.service.projectId, from.id, 'the service stayed where it was');
      t.same(ids((await s.call('GET', '/api/projects/to')).body.project.services), [svc.id], 'the target project is unchanged');
      t.same(ids((await s.call('GET', '/api/projects/from')).body.project.services), [twin.id]);
      t.same((await s.call('DELETE', `/api/services/${twin.id}`)).body, { ok: true, proxy: CADDY_LOADED }, 'the twin deleted');
    });

    const deleted = await s.call('DELETE', `/api/services/${svc.id}`);
    t.same(deleted.body, { ok: true, proxy: CADDY_LOADED }, 'service deleted; Caddy loaded the configuration');
    assertError(t, await s.call('GET', `/api/services/${svc.id}/overview`), 404, 'not_found', 'a deleted service');
    assertError(t, await s.call('DELETE', `/api/services/${svc.id}`), 404, 'not_found', 'deleting it again');
  });

  t.test('keys and scopes (spec section 5)', async (t) => {
    const a = await createProject(s, 'Scope A');
    const b = await createProject(s, 'Scope B');
    const svcA = await createService(s, a.id, { name: 'sa', repoFullName: 'acme/a', branch: 'main' });
    const svcB = await createService(s, b.id, { name: 'sb', repoFullName: 'acme/b', branch: 'main' });
    const readAll = await createKey(s, 'read', null);
    const writeA = await createKey(s, 'write', [a.id]);
    const readA = await createKey(s, 'read', [a.id]);
    const writeAB = await createKey(s, 'write', [a.id, b.id]);

    const listA = await s.call('GET', '/api/projects', { key: writeA.secret });
    t.same(ids(listA.body.projects), [a.id], 'only visible projects are listed');
    const everything = ids((await s.call('GET', '/api/projects')).body.projects);
    t.ok(everything.includes(a.id) && everything.includes(b.id), 'the bootstrap key sees both');
    t.same(ids((await s.call('GET', '/api/projects', { key: readAll.secret })).body.projects), everything, 'an all-project read key sees every project');

    assertError(t, await s.call('POST', '/api/projects', { body: { name: 'x' }, key: readAll.secret }), 403, 'forbidden', 'read keys cannot write');
    assertError(t, await s.call('POST', '/api/projects', { body: { name: 'x' }, key: writeA.secret }), 403, 'forbidden', 'selected-project keys cannot create projects');
    assertError(t, await s.call('POST', `/api/services/${svcA.id}/env`, { body: { key: 'A', value: 'b' }, key: readA.secret }), 403, 'forbidden', 'a read key on its own project');
    t.equal((await s.call('POST', `/api/services/${svcA.id}/env`, { body: { key: 'A', value: 'b' }, key: writeA.secret })).status, 200);

    const hidden = await s.call('GET', `/api/projects/${b.slug}`, { key: writeA.secret });
    const missing = await s.call('GET', '/api/projects/no-such-project', { key: writeA.secret });
    assertError(t, hidden, 404, 'not_found', 'an invisible project');
    t.same(hidden.body, missing.body, 'an invisible project answers exactly like a missing one');
    const hiddenSvc = await s.call('GET', `/api/services/${svcB.id}/overview`, { key: writeA.secret });
    const missingSvc = await s.call('GET', '/api/services/00000000-0000-4000-8000-000000000000/overview', { key: writeA.secret });
    assertError(t, hiddenSvc, 404, 'not_found', 'an invisible service');
    t.same(hiddenSvc.body, missingSvc.body);
    for (const [method, path, body] of [
      ['PATCH', `/api/projects/${b.id}`, { name: 'z' }],
      ['DELETE', `/api/projects/${b.id}`, undefined],
      ['POST', `/api/projects/${b.id}/services`, { name: 'q', repoFullName: 'a/b', branch: 'main' }],
      ['PATCH', `/api/services/${svcB.id}`, { branch: 'x' }],
      ['DELETE', `/api/services/${svcB.id}`, undefined],
      ['POST', `/api/services/${svcB.id}/env`, { key: 'A', value: 'b' }],
      ['POST', `/api/services/${svcB.id}/domains`, { hostname: 'b.example.org' }],
      ['GET', `/api/services/${svcB.id}/suggestion-keys`, undefined],
      ['GET', `/api/projects/${b.id}/database-variable-suggestions`, undefined],
      ['GET', `/api/projects/${b.id}/events`, undefined],
    ] as const) {
      const r = await s.call(method, path, body === undefined ? { key: writeA.secret } : { body, key: writeA.secret });
      assertError(t, r, 404, 'not_found', `${method} ${path} hidden`);
    }

    assertError(t, await s.call('POST', `/api/services/${svcA.id}/transfer`, { body: { targetProjectId: b.id }, key: writeA.secret }), 404, 'not_found', 'transfer needs the target project too');
    t.equal((await s.call('POST', `/api/services/${svcA.id}/transfer`, { body: { targetProjectId: b.id }, key: writeAB.secret })).status, 200, 'a key for both projects may transfer');

    assertError(t, await s.call('GET', '/api/keys', { key: writeA.secret }), 403, 'forbidden', 'a selected-project key lists keys');
    assertError(t, await s.call('GET', '/api/keys', { key: readAll.secret }), 403, 'forbidden', 'a read key lists keys');
    assertError(t, await s.call('POST', '/api/keys', { body: { name: 'k', access: 'read' }, key: writeA.secret }), 403, 'forbidden', 'a selected-project key creates a key');
    assertError(t, await s.call('GET', '/api/events', { key: writeA.secret }), 403, 'forbidden', 'a selected-project key reads the whole history');
    const keys = (await s.call('GET', '/api/keys')).body.keys as Record<string, unknown>[];
    const made = [readAll, writeA, readA, writeAB].map((k) => k.key.id);
    t.equal(keys.length, 5, 'the bootstrap key and the four made here');
    t.ok(made.every((id) => keys.some((k) => k.id === id)), 'the four made here are listed');
    for (const k of keys) {
      t.same(Object.keys(k).sort(), ['access', 'createdAt', 'id', 'name', 'ownerUserId', 'prefix', 'projectIds', 'revokedAt'], `key ${String(k.name)}: no secret, no hash`);
    }
    const unknownProject = await s.call('POST', '/api/keys', { body: { name: 'bad', access: 'write', projectIds: ['00000000-0000-4000-8000-000000000000'] } });
    assertError(t, unknownProject, 400, 'validation_failed', 'a key for a project that does not exist');

    await t.test('deployments follow the same scopes', async (t) => {
      const queued = await s.call('POST', `/api/services/${svcB.id}/deployments`, { key: writeAB.secret });
      t.equal(queued.status, 200);
      const id = queued.body.deployment.id;
      assertError(t, await s.call('POST', `/api/services/${svcA.id}/deployments`, { key: readA.secret }), 403, 'forbidden', 'read keys cannot deploy');
      for (const [method, path] of [
        ['POST', `/api/services/${svcB.id}/deployments`],
        ['GET', `/api/services/${svcB.id}/deployments`],
        ['POST', `/api/deployments/${id}/abort`],
        ['GET', `/api/deployments/${id}/logs`],
        ['GET', `/api/deployments/${id}/stream`],
        ['GET', `/api/services/${svcB.id}/runtime-logs/stream`],
      ] as const) {
        assertError(t, await s.call(method, path, { key: writeA.secret }), 404, 'not_found', `${method} ${path} hidden`);
      }
      // The suite's Git base URL answers nothing: the clone fails at once, whatever the network.
      const done = await waitForDeployment(s, svcB.id, id, 60_000);
      t.match(done, { status: 'failed', reason: /^git clone failed: .*acme\/b\.git/ }, 'the deployment ran and failed at the clone');
      const logs = await s.call('GET', `/api/deployments/${id}/logs`, { key: writeAB.secret });
      t.equal(logs.status, 200);
      t.match(logs.body.logs.at(-1)?.line, /^Deployment failed: git clone failed/);
      assertError(t, await s.call('POST', `/api/deployments/${id}/abort`, { key: writeAB.secret }), 409, 'conflict', 'aborting a finished deployment');
      const db = await createService(s, b.id, { name: 'dbx', repoFullName: 'database:redis', repoUrl: 'database', branch: 'main', internalPort: 6379, databasePublicEnabled: false, env: [] });
      assertError(t, await s.call('GET', `/api/services/${db.id}/database/tables`, { key: writeAB.secret }), 409, 'conflict', 'browsing a database that has not run');
      assertError(t, await s.call('GET', `/api/services/${db.id}/database/tables`, { key: writeA.secret }), 404, 'not_found', 'browsing a database of an invisible project');
      assertError(t, await s.call('GET', `/api/services/${svcB.id}/database/tables`, { key: writeAB.secret }), 400, 'validation_failed', 'browsing a service that is no database');
      assertError(t, await s.call('GET', `/api/services/${db.id}/database/rows?table=x.y&limit=0`, { key: writeAB.secret }), 400, 'validation_failed', 'a limit out of range');
    });

    t.same((await s.call('DELETE', `/api/keys/${readAll.key.id}`)).body, { ok: true });
    assertError(t, await s.call('GET', '/api/projects', { key: readAll.secret }), 401, 'unauthorized', 'a revoked key stops working at once');
    assertError(t, await s.call('DELETE', '/api/keys/00000000-0000-4000-8000-000000000000'), 404, 'not_found', 'revoking an unknown key');
  });

  t.test('events for auditors', async (t) => {
    const p = await createProject(s, 'Audited');
    const svc = await createService(s, p.id, { name: 'sec', repoFullName: 'acme/sec', branch: 'main', gitToken: 'tok_live_abcdef123456' });
    t.equal((await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'STRIPE_SECRET', value: 'sk_live_verysecretvalue' } })).status, 200);
    const page = await s.call('GET', `/api/projects/${p.id}/events?limit=1000`);
    t.equal(page.status, 200);
    t.same(
      page.body.events.map((e: { type: string; streamId: string }) => [e.type, e.streamId]),
      [
        ['ProjectCreated', `project-${p.id}`],
        ['ProjectServiceAttached', `project-${p.id}`],
        ['ServiceCreated', `service-${svc.id}`],
        ['EnvVarSet', `service-${svc.id}`],
      ],
    );
    for (const e of page.body.events) {
      t.match(e, { position: String, id: String, streamId: String, revision: Number, type: String, schemaVersion: Number, recordedAt: /^\d{4}-\d\d-\d\dT/, actor: /^key:/, correlationId: String, data: Object });
    }
    const text = JSON.stringify(page.body);
    t.notMatch(text, 'sk_live_verysecretvalue');
    t.notMatch(text, 'tok_live_abcdef123456');
    t.match(text, '[encrypted]');

    const first = await s.call('GET', '/api/events?limit=2');
    t.equal(first.body.events.length, 2);
    t.equal(first.body.next, first.body.events[1].position, 'next is the last position of the page');
    const second = await s.call('GET', `/api/events?limit=2&after=${first.body.next}`);
    t.equal(second.body.events.length, 2);
    t.ok(second.body.events[0].position > first.body.events[1].position, 'paging by position');
    for (const [query, path] of [
      ['after=bogus', 'after'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
    ] as const) {
      const r = await s.call('GET', `/api/events?${query}`);
      assertError(t, r, 400, 'validation_failed', query);
      t.same(detailPaths(r), [path]);
    }
    const stream = await s.call('GET', `/api/events?stream=service-${svc.id}`);
    t.same(
      stream.body.events.map((e: { type: string; streamId: string }) => [e.type, e.streamId]),
      [
        ['ServiceCreated', `service-${svc.id}`],
        ['EnvVarSet', `service-${svc.id}`],
      ],
      'one stream, all of it',
    );
  });

  badInputTests(t, () => s);
}
