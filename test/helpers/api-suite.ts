import type { Test } from 'tap';
import type { TestServer } from './test-server.js';

const json = { 'content-type': 'application/json' };

export async function createProject(s: TestServer, name: string, key?: string) {
  const r = await s.call('POST', '/api/projects', { body: { name, description: `${name} description` }, ...(key ? { key } : {}) });
  if (r.status !== 200) throw new Error(`create project: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.project as { id: string; slug: string; name: string };
}

export async function createService(s: TestServer, projectId: string, body: Record<string, unknown>) {
  const r = await s.call('POST', `/api/projects/${projectId}/services`, { body });
  if (r.status !== 200) throw new Error(`create service: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.service as Record<string, any>;
}

export async function createKey(s: TestServer, access: 'read' | 'write', projectIds: string[] | null) {
  const r = await s.call('POST', '/api/keys', { body: { name: `${access}-key`, access, projectIds } });
  if (r.status !== 200) throw new Error(`create key: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { key: { id: string }; secret: string };
}

/** The management API contract, run against whichever database `start` gives. */
export function apiSuite(t: Test, start: () => Promise<TestServer>) {
  let s: TestServer;
  t.before(async () => {
    s = await start();
  });
  t.teardown(() => s.close());

  t.test('projects: create, list, get by slug, update, delete', async (t) => {
    const created = await s.call('POST', '/api/projects', { body: { name: 'Acme Shop', description: 'the shop' } });
    t.equal(created.status, 200);
    const p = created.body.project;
    t.match(p, { name: 'Acme Shop', slug: 'acme-shop', description: 'the shop', status: 'idle', serviceCount: 0, services: [] });
    t.match(p.lastUpdatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const twin = await createProject(s, 'Acme Shop');
    t.equal(twin.slug, 'acme-shop-2', 'slugs stay unique');

    const list = await s.call('GET', '/api/projects');
    t.ok(list.body.projects.some((x: { id: string }) => x.id === p.id));

    const bySlug = await s.call('GET', '/api/projects/acme-shop');
    t.equal(bySlug.body.project.id, p.id);
    t.equal((await s.call('GET', `/api/projects/${p.id}`)).body.project.slug, 'acme-shop', 'an id works too');

    const updated = await s.call('PATCH', `/api/projects/${p.id}`, { body: { description: 'new words' } });
    t.match(updated.body.project, { name: 'Acme Shop', description: 'new words', slug: 'acme-shop' });
    t.ok(updated.body.project.lastUpdatedAt >= p.lastUpdatedAt);

    const svc = await createService(s, p.id, { name: 'api', repoFullName: 'acme/api', branch: 'main' });
    await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'TOKEN', value: 'x' } });
    await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'api.acme.test' } });
    const removed = await s.call('DELETE', `/api/projects/${p.id}`);
    t.equal(removed.status, 200);
    t.equal(removed.body.ok, true);
    t.match(removed.body.proxy, { ok: Boolean, detail: String });
    t.equal((await s.call('GET', '/api/projects/acme-shop')).status, 404);
    t.equal((await s.call('GET', `/api/services/${svc.id}/overview`)).status, 404, 'services go with the project');

    const again = await createProject(s, 'Acme Shop');
    t.equal(again.slug, 'acme-shop', 'a deleted project frees its slug');
    const other = await createService(s, again.id, { name: 'api2', repoFullName: 'acme/api', branch: 'main' });
    const domain = await s.call('POST', `/api/services/${other.id}/domains`, { body: { hostname: 'api.acme.test' } });
    t.equal(domain.status, 200, 'and its services free their hostnames');
  });

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
      repoUrl: /acme\/web/,
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
      t.match(db, { repoFullName: `database:${engine}`, repoUrl: 'database', internalPort: port, status: 'idle' }, engine);
    }

    const ports = new Set([hosted.hostPort, direct.hostPort, image.hostPort]);
    t.equal(ports.size, 3, 'host ports are unique');

    const worker = await createService(s, p.id, { name: 'jobs', repoFullName: 'acme/jobs', branch: 'main', runtimeMode: 'worker' });
    t.equal(worker.runtimeMode, 'worker');
    t.equal(worker.localUrl, '');
    const refused = await s.call('POST', `/api/services/${worker.id}/domains`, { body: { hostname: 'jobs.acme.test' } });
    t.equal(refused.status, 400, 'workers refuse domains');
    t.equal(refused.body.error.code, 'validation_failed');

    const site = await createService(s, p.id, { name: 'docs', repoFullName: 'acme/docs', branch: 'main', runtimeMode: 'static' });
    t.match(site, { runtimeMode: 'static', internalPort: 8080 });

    const dup = await s.call('POST', `/api/projects/${p.id}/services`, { body: { name: 'web app', repoFullName: 'acme/x', branch: 'main' } });
    t.equal(dup.status, 409, 'service names are unique within a project');

    const listed = (await s.call('GET', '/api/projects/variants')).body.project;
    t.equal(listed.serviceCount, 11);
    t.equal(listed.services.length, 11);
  });

  t.test('database services get credentials and suggestions', async (t) => {
    const p = await createProject(s, 'Data');
    const db = await createService(s, p.id, { name: 'main-db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, databasePublicEnabled: false, env: [{ key: 'POSTGRES_DB', value: 'shop' }] });
    const cache = await createService(s, p.id, { name: 'cache', repoFullName: 'database:redis', repoUrl: 'database', branch: 'main', internalPort: 6379, databasePublicEnabled: false, env: [] });
    const app = await createService(s, p.id, { name: 'app', repoFullName: 'acme/app', branch: 'main', env: [{ key: 'DATABASE_URL', value: '${main-db.DATABASE_URL}' }, { key: 'MISSING', value: '${nope.X}' }] });

    const overview = (await s.call('GET', `/api/services/${db.id}/overview`)).body;
    const vars = Object.fromEntries(overview.env.map((e: { key: string; value: string }) => [e.key, e]));
    t.equal(vars.POSTGRES_DB.value, 'shop', 'given variables win');
    t.equal(vars.POSTGRES_USER.value, 'postgres');
    t.ok(vars.POSTGRES_PASSWORD.value.length >= 16, 'a generated password');
    t.equal(vars.DATABASE_URL.resolvedValue, `postgresql://postgres:${vars.POSTGRES_PASSWORD.value}@main-db:5432/shop`);

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
    t.ok(keys.suggestions.some((x: { key: string }) => x.key === 'PORT'));
    t.ok(keys.suggestions.some((x: { key: string }) => x.key === 'main-db.DATABASE_URL'));
    t.equal(keys.databaseVariables.length, 2);
    t.ok(cache.id);
  });

  t.test('environment variables: upsert by key, delete, key rule', async (t) => {
    const p = await createProject(s, 'Env');
    const svc = await createService(s, p.id, { name: 'api', repoFullName: 'acme/api', branch: 'main' });
    t.same((await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'API_KEY', value: 'one' } })).body, { ok: true });
    await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'API_KEY', value: 'two' } });
    await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'EMPTY', value: '' } });
    let env = (await s.call('GET', `/api/services/${svc.id}/overview`)).body.env;
    t.equal(env.length, 2, 'upsert keeps one variable per key');
    const apiKey = env.find((e: { key: string }) => e.key === 'API_KEY');
    t.match(apiKey, { value: 'two', resolvedValue: 'two', hasValue: true });
    t.equal(env.find((e: { key: string }) => e.key === 'EMPTY').hasValue, false);

    for (const key of ['lower', '1ABC', 'A-B', '', 'A B']) {
      const bad = await s.call('POST', `/api/services/${svc.id}/env`, { body: { key, value: 'v' } });
      t.equal(bad.status, 400, `key ${JSON.stringify(key)} refused`);
    }
    t.equal((await s.call('DELETE', `/api/services/${svc.id}/env/${apiKey.id}`)).status, 200);
    t.equal((await s.call('DELETE', `/api/services/${svc.id}/env/${apiKey.id}`)).status, 404);
    env = (await s.call('GET', `/api/services/${svc.id}/overview`)).body.env;
    t.same(env.map((e: { key: string }) => e.key), ['EMPTY']);
  });

  t.test('domains: add, change, delete, unique across the platform', async (t) => {
    const p = await createProject(s, 'Domains');
    const a = await createService(s, p.id, { name: 'a', repoFullName: 'acme/a', branch: 'main' });
    const b = await createService(s, p.id, { name: 'b', repoFullName: 'acme/b', branch: 'main' });
    const added = await s.call('POST', `/api/services/${a.id}/domains`, { body: { hostname: 'Shop.Example.COM.' } });
    t.equal(added.status, 200);
    t.match(added.body, { ok: true, proxy: { ok: Boolean, detail: String } });
    let overview = (await s.call('GET', `/api/services/${a.id}/overview`)).body;
    t.match(overview.domains, [{ hostname: 'shop.example.com', status: 'active', serviceId: a.id }]);
    t.equal(overview.service.primaryUrl, 'http://shop.example.com');
    const domainId = overview.domains[0].id;

    t.equal((await s.call('POST', `/api/services/${b.id}/domains`, { body: { hostname: 'shop.example.com' } })).status, 409);
    t.equal((await s.call('POST', `/api/services/${a.id}/domains`, { body: { hostname: 'shop.example.com' } })).status, 409);
    for (const hostname of ['localhost', 'bad_host.com', '-x.com', 'a..b.com', '1.2.3.4', 'x'.repeat(64) + '.com', 'sp ace.com']) {
      t.equal((await s.call('POST', `/api/services/${a.id}/domains`, { body: { hostname } })).status, 400, `${hostname} refused`);
    }

    const changed = await s.call('PATCH', `/api/services/${a.id}/domains/${domainId}`, { body: { hostname: 'www.example.com' } });
    t.equal(changed.status, 200);
    overview = (await s.call('GET', `/api/services/${a.id}/overview`)).body;
    t.same(overview.domains.map((d: { hostname: string }) => d.hostname), ['www.example.com']);
    t.equal((await s.call('POST', `/api/services/${b.id}/domains`, { body: { hostname: 'shop.example.com' } })).status, 200, 'old hostname freed');

    t.equal((await s.call('DELETE', `/api/services/${a.id}/domains/${domainId}`)).status, 200);
    t.equal((await s.call('DELETE', `/api/services/${a.id}/domains/${domainId}`)).status, 404);
    t.equal((await s.call('PATCH', `/api/services/${b.id}/domains/${domainId}`, { body: { hostname: 'q.example.com' } })).status, 404);
    t.equal((await s.call('POST', `/api/services/${b.id}/domains`, { body: { hostname: 'www.example.com' } })).status, 200);

    const patchWorker = await s.call('PATCH', `/api/services/${b.id}`, { body: { runtimeMode: 'worker' } });
    t.equal(patchWorker.status, 409, 'a service with domains cannot become a worker');
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
    t.ok(patched.body.service.updatedAt > svc.updatedAt);
    t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: {} })).status, 400);
    t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { internalPort: 70000 } })).status, 400);
    t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { rootDir: '../etc' } })).status, 400);
    t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { buildMethod: 'magic' } })).status, 400);

    const moved = await s.call('POST', `/api/services/${svc.id}/transfer`, { body: { targetProjectId: to.id } });
    t.equal(moved.status, 200);
    t.same(moved.body.service, { id: svc.id, projectId: to.id, name: 'mover', slug: 'mover' });
    t.match(moved.body.project, { id: to.id, name: 'To', slug: 'to', serviceCount: 1 });
    t.equal(moved.body.project.services[0].id, svc.id);
    t.match(moved.body.proxy, { ok: Boolean, detail: String });
    t.equal((await s.call('GET', '/api/projects/from')).body.project.serviceCount, 0);
    const listed = (await s.call('GET', '/api/projects')).body.projects;
    t.same(listed.find((x: { id: string }) => x.id === from.id).services, [], 'the project list follows the transfer');
    t.same(listed.find((x: { id: string }) => x.id === to.id).services.map((x: { id: string }) => x.id), [svc.id]);
    t.equal((await s.call('POST', `/api/services/${svc.id}/transfer`, { body: { targetProjectId: to.id } })).status, 400);
    t.equal((await s.call('POST', `/api/services/${svc.id}/transfer`, { body: { targetProjectId: 'nope' } })).status, 404);

    const deleted = await s.call('DELETE', `/api/services/${svc.id}`);
    t.match(deleted.body, { ok: true, proxy: { ok: Boolean } });
    t.equal((await s.call('GET', `/api/services/${svc.id}/overview`)).status, 404);
    t.equal((await s.call('DELETE', `/api/services/${svc.id}`)).status, 404);
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
    t.same(listA.body.projects.map((p: { id: string }) => p.id), [a.id], 'only visible projects are listed');
    t.ok((await s.call('GET', '/api/projects', { key: readAll.secret })).body.projects.length >= 2);

    t.equal((await s.call('POST', '/api/projects', { body: { name: 'x' }, key: readAll.secret })).status, 403, 'read keys cannot write');
    t.equal((await s.call('POST', '/api/projects', { body: { name: 'x' }, key: writeA.secret })).status, 403, 'selected-project keys cannot create projects');
    t.equal((await s.call('POST', `/api/services/${svcA.id}/env`, { body: { key: 'A', value: 'b' }, key: readA.secret })).status, 403);
    t.equal((await s.call('POST', `/api/services/${svcA.id}/env`, { body: { key: 'A', value: 'b' }, key: writeA.secret })).status, 200);

    const hidden = await s.call('GET', `/api/projects/${b.slug}`, { key: writeA.secret });
    const missing = await s.call('GET', '/api/projects/no-such-project', { key: writeA.secret });
    t.equal(hidden.status, 404);
    t.same(hidden.body, missing.body, 'an invisible project answers exactly like a missing one');
    const hiddenSvc = await s.call('GET', `/api/services/${svcB.id}/overview`, { key: writeA.secret });
    const missingSvc = await s.call('GET', '/api/services/00000000-0000-4000-8000-000000000000/overview', { key: writeA.secret });
    t.equal(hiddenSvc.status, 404);
    t.same(hiddenSvc.body, missingSvc.body);
    for (const [method, path, body] of [
      ['PATCH', `/api/projects/${b.id}`, { name: 'z' }],
      ['DELETE', `/api/projects/${b.id}`, undefined],
      ['POST', `/api/projects/${b.id}/services`, { name: 'q', repoFullName: 'a/b', branch: 'main' }],
      ['PATCH', `/api/services/${svcB.id}`, { branch: 'x' }],
      ['DELETE', `/api/services/${svcB.id}`, undefined],
      ['POST', `/api/services/${svcB.id}/domains`, { hostname: 'b.example.org' }],
      ['GET', `/api/services/${svcB.id}/suggestion-keys`, undefined],
      ['GET', `/api/projects/${b.id}/database-variable-suggestions`, undefined],
      ['GET', `/api/projects/${b.id}/events`, undefined],
    ] as const) {
      const r = await s.call(method, path, body === undefined ? { key: writeA.secret } : { body, key: writeA.secret });
      t.equal(r.status, 404, `${method} ${path} hidden`);
    }

    t.equal((await s.call('POST', `/api/services/${svcA.id}/transfer`, { body: { targetProjectId: b.id }, key: writeA.secret })).status, 404, 'transfer needs the target project too');
    t.equal((await s.call('POST', `/api/services/${svcA.id}/transfer`, { body: { targetProjectId: b.id }, key: writeAB.secret })).status, 200, 'a key for both projects may transfer');

    t.equal((await s.call('GET', '/api/keys', { key: writeA.secret })).status, 403);
    t.equal((await s.call('GET', '/api/keys', { key: readAll.secret })).status, 403);
    t.equal((await s.call('GET', '/api/events', { key: writeA.secret })).status, 403);
    const keys = (await s.call('GET', '/api/keys')).body.keys;
    t.ok(keys.every((k: Record<string, unknown>) => !('secret' in k) && !('secretHash' in k)), 'secrets shown once only');
    t.equal((await s.call('POST', '/api/keys', { body: { name: 'bad', access: 'write', projectIds: ['00000000-0000-4000-8000-000000000000'] } })).status, 400);

    await t.test('deployments follow the same scopes', async (t) => {
      const queued = await s.call('POST', `/api/services/${svcB.id}/deployments`, { key: writeAB.secret });
      t.equal(queued.status, 200);
      const id = queued.body.deployment.id;
      t.equal((await s.call('POST', `/api/services/${svcA.id}/deployments`, { key: readA.secret })).status, 403, 'read keys cannot deploy');
      for (const [method, path] of [
        ['POST', `/api/services/${svcB.id}/deployments`],
        ['GET', `/api/services/${svcB.id}/deployments`],
        ['POST', `/api/deployments/${id}/abort`],
        ['GET', `/api/deployments/${id}/logs`],
        ['GET', `/api/deployments/${id}/stream`],
        ['GET', `/api/services/${svcB.id}/runtime-logs/stream`],
      ] as const) {
        t.equal((await s.call(method, path, { key: writeA.secret })).status, 404, `${method} ${path} hidden`);
      }
      t.equal((await s.call('GET', `/api/deployments/${id}/logs`, { key: writeAB.secret })).status, 200);
      const db = await createService(s, a.id, { name: 'dbx', repoFullName: 'database:redis', repoUrl: 'database', branch: 'main', internalPort: 6379, databasePublicEnabled: false, env: [] });
      const refused = await s.call('POST', `/api/services/${db.id}/deployments`);
      t.equal(refused.status, 400, 'database services are not deployed');
      t.match(refused.body, { error: { code: 'validation_failed' } });
    });

    t.equal((await s.call('DELETE', `/api/keys/${readAll.key.id}`)).status, 200);
    t.equal((await s.call('GET', '/api/projects', { key: readAll.secret })).status, 401, 'a revoked key stops working at once');
    t.equal((await s.call('DELETE', '/api/keys/00000000-0000-4000-8000-000000000000')).status, 404);
  });

  t.test('events for auditors', async (t) => {
    const p = await createProject(s, 'Audited');
    const svc = await createService(s, p.id, { name: 'sec', repoFullName: 'acme/sec', branch: 'main', gitToken: 'tok_live_abcdef123456' });
    await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'STRIPE_SECRET', value: 'sk_live_verysecretvalue' } });
    const page = await s.call('GET', `/api/projects/${p.id}/events?limit=1000`);
    t.equal(page.status, 200);
    const types = page.body.events.map((e: { type: string }) => e.type);
    t.same(types, ['ProjectCreated', 'ProjectServiceAttached', 'ServiceCreated', 'ProjectUpdated', 'EnvVarSet'].filter((x) => types.includes(x)));
    t.ok(types.includes('EnvVarSet') && types.includes('ServiceCreated'));
    for (const e of page.body.events) {
      t.match(e, { position: String, streamId: String, type: String, recordedAt: String, actor: /^key:/, data: Object });
    }
    const text = JSON.stringify(page.body);
    t.notMatch(text, 'sk_live_verysecretvalue');
    t.notMatch(text, 'tok_live_abcdef123456');
    t.match(text, '[encrypted]');

    const first = await s.call('GET', '/api/events?limit=2');
    t.equal(first.body.events.length, 2);
    const second = await s.call('GET', `/api/events?limit=2&after=${first.body.next}`);
    t.ok(second.body.events[0].position > first.body.events[1].position, 'paging by position');
    t.equal((await s.call('GET', '/api/events?after=bogus')).status, 400);
    t.equal((await s.call('GET', '/api/events?limit=0')).status, 400);
    const stream = await s.call('GET', `/api/events?stream=service-${svc.id}`);
    t.ok(stream.body.events.every((e: { streamId: string }) => e.streamId === `service-${svc.id}`));
  });

  t.test('bad input never gives a 500 and never writes', async (t) => {
    const p = await createProject(s, 'Errors');
    const svc = await createService(s, p.id, { name: 'e', repoFullName: 'acme/e', branch: 'main' });
    const domain = await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'errors.example.com' } });
    t.equal(domain.status, 200);
    const overview = (await s.call('GET', `/api/services/${svc.id}/overview`)).body;
    const domainId = overview.domains[0].id;
    const before = (await s.call('GET', '/api/events?limit=1000')).body.events.length;
    const bodies: [string, unknown][] = [
      ['malformed JSON', '{"name":'],
      ['array', '[]'],
      ['string', '"text"'],
      ['number', '42'],
      ['null', 'null'],
      ['wrong types', JSON.stringify({ name: 1, description: false, key: 5, value: [], hostname: {}, targetProjectId: 3, branch: 7, repoFullName: 9, internalPort: 'x' })],
      ['missing fields', '{}'],
      ['oversized', JSON.stringify({ name: 'x'.repeat(2_000_000) })],
      ['NUL', JSON.stringify({ name: 'a\u0000b', key: 'A', value: 'a\u0000' })],
    ];
    const endpoints: [string, string][] = [
      ['POST', '/api/projects'],
      ['PATCH', `/api/projects/${p.id}`],
      ['POST', `/api/projects/${p.id}/services`],
      ['PATCH', `/api/services/${svc.id}`],
      ['POST', `/api/services/${svc.id}/transfer`],
      ['POST', `/api/services/${svc.id}/env`],
      ['POST', `/api/services/${svc.id}/domains`],
      ['PATCH', `/api/services/${svc.id}/domains/${domainId}`],
      ['POST', '/api/keys'],
    ];
    for (const [method, path] of endpoints) {
      for (const [label, raw] of bodies) {
        const r = await s.call(method, path, { raw: raw as string });
        t.ok(r.status >= 400 && r.status < 500, `${method} ${path} ${label}: ${r.status}`);
        t.match(r.body, { error: { code: String, message: String, details: Array } }, 'one error body');
      }
    }
    const allEndpoints: [string, string][] = [
      ...endpoints,
      ['GET', '/api/projects'],
      ['GET', `/api/projects/${p.slug}`],
      ['DELETE', `/api/projects/${p.id}`],
      ['GET', `/api/projects/${p.id}/database-variable-suggestions`],
      ['GET', `/api/services/${svc.id}/overview`],
      ['DELETE', `/api/services/${svc.id}`],
      ['GET', `/api/services/${svc.id}/suggestion-keys`],
      ['DELETE', `/api/services/${svc.id}/env/00000000-0000-4000-8000-000000000000`],
      ['DELETE', `/api/services/${svc.id}/domains/${domainId}`],
      ['GET', '/api/keys'],
      ['DELETE', '/api/keys/00000000-0000-4000-8000-000000000000'],
      ['GET', '/api/events'],
      ['GET', `/api/projects/${p.id}/events`],
      ['POST', `/api/services/${svc.id}/deployments`],
      ['GET', `/api/services/${svc.id}/deployments`],
      ['POST', '/api/deployments/00000000-0000-4000-8000-000000000000/abort'],
      ['GET', '/api/deployments/00000000-0000-4000-8000-000000000000/logs'],
      ['GET', '/api/deployments/00000000-0000-4000-8000-000000000000/stream'],
      ['GET', `/api/services/${svc.id}/runtime-logs/stream`],
    ];
    for (const [method, path] of allEndpoints) {
      t.equal((await s.call(method, path, { key: null })).status, 401, `${method} ${path} without a key`);
      t.equal((await s.call(method, path, { key: 'slw_unknown' })).status, 401, `${method} ${path} with an unknown key`);
    }
    for (const [method, path] of [
      ['GET', '/api/projects/no-such'],
      ['PATCH', '/api/projects/not-a-uuid'],
      ['DELETE', '/api/projects/00000000-0000-4000-8000-000000000000'],
      ['GET', '/api/services/not-a-uuid/overview'],
      ['PATCH', '/api/services/00000000-0000-4000-8000-000000000000'],
      ['POST', '/api/services/00000000-0000-4000-8000-000000000000/env'],
      ['DELETE', `/api/services/${svc.id}/env/not-a-uuid`],
      ['PATCH', `/api/services/${svc.id}/domains/not-a-uuid`],
      ['GET', '/api/services/../../etc/passwd'],
      ['POST', '/api/services/00000000-0000-4000-8000-000000000000/deployments'],
      ['GET', '/api/services/not-a-uuid/deployments'],
      ['POST', '/api/deployments/00000000-0000-4000-8000-000000000000/abort'],
      ['GET', '/api/deployments/not-a-uuid/logs'],
      ['GET', '/api/deployments/00000000-0000-4000-8000-000000000000/stream'],
      ['GET', '/api/services/00000000-0000-4000-8000-000000000000/runtime-logs/stream'],
    ] as const) {
      const body = { name: 'x', key: 'A', value: 'b', hostname: 'x.example.com', branch: 'x' };
      const r = await s.call(method, path, method === 'GET' ? {} : { body });
      t.equal(r.status, 404, `${method} ${path} is unknown`);
    }
    const after = (await s.call('GET', '/api/events?limit=1000')).body.events.length;
    t.equal(after, before, 'no refused request wrote an event');
    const unsupported = await s.call('POST', '/api/projects', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    t.equal(unsupported.status, 400);
    t.ok(json);
  });
}
