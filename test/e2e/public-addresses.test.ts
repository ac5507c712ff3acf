import { Client } from 'pg';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { rawRequest } from '../helpers/http-raw.js';
import { testWebService } from '../helpers/http-resources.js';
import { freePort } from '../helpers/net.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The primaryUrl of the service in every answer that shows it. */
async function primaryUrls(s: TestServer, projectId: string, serviceId: string) {
  const ofProject = (project: { services: { id: string; primaryUrl: string }[] }) => project.services.find((x) => x.id === serviceId)!.primaryUrl;
  return {
    service: (await s.call('GET', `/api/services/${serviceId}`)).body.service.primaryUrl,
    overview: (await s.call('GET', `/api/services/${serviceId}/overview`)).body.service.primaryUrl,
    project: ofProject((await s.call('GET', `/api/projects/${projectId}`)).body.project),
    projects: ofProject((await s.call('GET', '/api/projects')).body.projects.find((p: { id: string }) => p.id === projectId)),
  };
}
const everywhere = (url: string) => ({ service: url, overview: url, project: url, projects: url });

t.test('URLs carry the proxy’s port when it is not the scheme’s default, and the proxy answers there', { skip: await requireDocker() }, async (t) => {
  const httpsPort = await freePort();
  const { env, proxyPort } = await deployEnv({
    SLIPWAY_PROXY_HTTPS_PORT: String(httpsPort),
    // Nothing answers here: Caddy's attempts to get a certificate fail quietly, its redirect to HTTPS does not depend on them.
    SLIPWAY_ACME_DIRECTORY_URL: `https://127.0.0.1:${await freePort()}/directory`,
  });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Addresses');
  t.teardown(() => removeProjectLeftovers(p.id));
  const web = await createService(s, p.id, testWebService('web'));
  t.equal(outcome((await deploy(s, web.id)).done), 'succeeded');
  t.equal((await s.call('POST', `/api/services/${web.id}/domains`, { body: { hostname: 'shop.example.test' } })).status, 200);

  const plain = `http://shop.example.test:${proxyPort}`;
  t.same(await primaryUrls(s, p.id, web.id), everywhere(plain), 'http with the proxy’s HTTP port');
  const answered = await rawRequest(`http://127.0.0.1:${proxyPort}`, 'GET', '/', { headers: { host: new URL(plain).host } });
  t.equal(answered.status, 200, 'the proxy serves the service at that address');

  t.equal((await s.call('PATCH', '/api/settings', { body: { httpsEnabled: true } })).status, 200);
  const secure = `https://shop.example.test:${httpsPort}`;
  t.same(await primaryUrls(s, p.id, web.id), everywhere(secure), 'with HTTPS on: https with the proxy’s HTTPS port, cached lists included');
  const redirected = await rawRequest(`http://127.0.0.1:${proxyPort}`, 'GET', '/', { headers: { host: new URL(plain).host } });
  t.equal(redirected.status, 308, 'plain HTTP is redirected to HTTPS');
  t.equal(redirected.headers.location, `${secure}/`, 'to the very URL the answers show');

  t.equal((await s.call('PATCH', '/api/settings', { body: { httpsEnabled: false } })).status, 200);
  t.same(await primaryUrls(s, p.id, web.id), everywhere(plain), 'and back');
});

t.test('the TLS endpoint names localhost for a database bound to loopback, its public name otherwise', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const { env } = await deployEnv({ ...DB_IMAGE_ENV });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Tls names');
  t.teardown(() => removeProjectLeftovers(p.id));
  const database = (name: string, extra: Record<string, unknown>) => ({ name, repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 5432, env: [{ key: 'POSTGRES_PASSWORD', value: 'pw-4471' }], ...extra });
  const local = await createService(s, p.id, database('local-db', { databasePublicEnabled: false, databasePublicHostname: 'local-db.example.test' }));
  const open = await createService(s, p.id, database('open-db', { databasePublicEnabled: true, databasePublicHostname: 'open-db.example.test' }));
  for (const r of await Promise.all([local, open].map((db) => deploy(s, db.id)))) t.equal(outcome(r.done), 'succeeded');
  const ca = (await s.call('GET', `/api/services/${local.id}/database/tls/ca`)).body as string;

  for (const [db, name] of [[local, 'localhost'], [open, 'open-db.example.test']] as const) {
    const tls = (await s.call('GET', `/api/services/${db.id}/database/tls`)).body.tls;
    t.same(tls, { active: true, caCertAvailable: true, publicHostname: name, publicPort: db.hostPort });
    // The advertised name is one the certificate holds: verify-full passes with it.
    const client = new Client({ host: '127.0.0.1', port: tls.publicPort, user: 'postgres', password: 'pw-4471', database: db.name.replace('-', '_'), ssl: { ca, servername: tls.publicHostname, rejectUnauthorized: true } });
    await client.connect();
    t.equal((await client.query('select ssl from pg_stat_ssl where pid = pg_backend_pid()')).rows[0].ssl, true, `${db.name}: verified as ${name}`);
    await client.end();
  }
});
