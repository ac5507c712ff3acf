import t, { type Test } from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { memoryHungryApp } from '../helpers/apps.js';
import { deploy, deployEnv, logLines, outcome } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { startGitServer } from '../helpers/git-server.js';
import { eventually } from '../helpers/net.js';
import { databaseService, testWebService } from '../helpers/http-resources.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const MB = 1024 * 1024;

/** The HostConfig of the container that runs a service now. */
async function hostConfigOf(serviceId: string) {
  const [found] = await docker.listContainers({ filters: { label: [`${LABEL.service}=${serviceId}`] } });
  if (!found) throw new Error(`no container runs for ${serviceId}`);
  return (await docker.getContainer(found.Id).inspect()).HostConfig;
}

async function deployed(t: Test, s: TestServer, serviceId: string, what: string) {
  const { done } = await deploy(s, serviceId);
  t.equal(outcome(done), 'succeeded', `${what} deploys`);
  return done;
}

t.test('resource limits reach Docker, out of memory is named, use is shown', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/hungry', memoryHungryApp(200));
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_DEPLOY_CONCURRENCY: '3' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Limits');
  t.teardown(() => removeProjectLeftovers(project.id));

  t.test('bad limits are 400 with the field named, on create, PATCH and the settings', async (t) => {
    const bad = [
      [{ memory: '5m' }, 'resources.memory', /at least 6m/],
      [{ memory: 'lots' }, 'resources.memory', /must be a size/],
      [{ memory: '128m', memoryReservation: '256m' }, 'resources.memoryReservation', /must not be above memory/],
      [{ cpus: 0 }, 'resources.cpus', /decimal number of CPUs/],
      [{ cpus: 4096 }, 'resources.cpus', /host's CPU count/],
      [{ pids: 8 }, 'resources.pids', /16|>=/],
      [{ swap: '1g' }, 'resources', /swap|Unrecognized/],
    ] as const;
    for (const [resources, path, message] of bad) {
      const created = await s.call('POST', `/api/projects/${project.id}/services`, { body: { ...testWebService('refused'), resources } });
      t.equal(created.status, 400, `create with ${JSON.stringify(resources)}`);
      t.equal(created.body.error.code, 'validation_failed');
      t.match(created.body.error.details, [{ path, message }]);
    }
    const web = await createService(s, project.id, testWebService('patched'));
    const patched = await s.call('PATCH', `/api/services/${web.id}`, { body: { resources: { memory: '64m', memoryReservation: '1g' } } });
    t.equal(patched.status, 400);
    t.match(patched.body.error.details, [{ path: 'resources.memoryReservation' }]);
    const database = await createService(s, project.id, databaseService('refused-db', 'redis'));
    t.equal((await s.call('PATCH', `/api/services/${database.id}`, { body: { resources: { cpus: '-1' } } })).status, 400, 'a database service too');
    const settings = await s.call('PATCH', '/api/settings', { body: { defaultResources: { memory: '1k' } } });
    t.equal(settings.status, 400);
    t.match(settings.body.error.details, [{ path: 'defaultResources.memory' }]);
    await s.call('DELETE', `/api/services/${web.id}`);
    await s.call('DELETE', `/api/services/${database.id}`);
  });

  t.test('an app that allocates past its limit fails with "out of memory (limit 64m)"', async (t) => {
    const hungry = await createService(s, project.id, { name: 'hungry', repoFullName: 'acme/hungry', branch: 'main', resources: { memory: '64M' } });
    t.same(hungry.resources, { memory: '64m' }, 'stored in its canonical human form');
    const { done } = await deploy(s, hungry.id);
    t.equal(done.status, 'failed');
    t.match(done.reason, /^the container was killed: out of memory \(limit 64m\) before it was ready/);
    const log = (await logLines(s, done.id)).join('\n');
    t.match(log, /holding 1 MB/, 'the app started allocating');
    t.notMatch(log, /all allocated/, 'and never got past its limit');
  });

  t.test('an app\'s limits land in its HostConfig, and the overview shows its use next to them', async (t) => {
    const web = await createService(s, project.id, {
      ...testWebService('limited'),
      resources: { memory: '128m', memoryReservation: 64 * MB, cpus: 0.5, pids: 200 },
    });
    t.same(web.resources, { memory: '128m', memoryReservation: String(64 * MB), cpus: '0.5', pids: 200 });
    await deployed(t, s, web.id, 'the limited app');
    const host = await hostConfigOf(web.id);
    t.equal(host.Memory, 128 * MB, 'Memory');
    t.equal(host.MemorySwap, 128 * MB, 'no swap beyond the limit');
    t.equal(host.MemoryReservation, 64 * MB, 'MemoryReservation');
    t.equal(host.NanoCpus, 500_000_000, 'NanoCpus');
    t.equal(host.PidsLimit, 200, 'PidsLimit: the service\'s, below the profile\'s 1024');

    // The first overview starts sampling its container; the first reading follows a moment later.
    const overview = await eventually(() => s.call('GET', `/api/services/${web.id}/overview`), (o) => o.body.usage !== null, 30_000);
    t.equal(overview.status, 200);
    t.same(overview.body.resources, { memory: '128m', memoryReservation: String(64 * MB), cpus: '0.5', pids: 200 });
    const usage = overview.body.usage;
    t.ok(usage, 'usage is read from Docker');
    t.equal(usage.memoryLimitBytes, 128 * MB, 'the limit Docker enforces');
    t.ok(usage.memoryBytes > 0 && usage.memoryBytes < 128 * MB, `memory in use (${usage.memoryBytes})`);
    t.ok(usage.pids >= 1 && usage.pids <= 200, `tasks (${usage.pids})`);
    t.ok(usage.cpuPercent >= 0 && usage.cpuPercent <= 100, `CPU (${usage.cpuPercent} %)`);
    const list = await s.call('GET', `/api/projects/${project.id}`);
    t.notOk('usage' in (list.body.project.services.find((x: { id: string }) => x.id === web.id) ?? {}), 'the list reads no stats');

    const never = await createService(s, project.id, testWebService('never-deployed'));
    t.equal((await s.call('GET', `/api/services/${never.id}/overview`)).body.usage, null, 'nothing runs: usage null');
  });

  t.test('defaultResources apply to a service without its own; null in a service is no limit', async (t) => {
    const set = await s.call('PATCH', '/api/settings', { body: { defaultResources: { memory: '96m', cpus: '0.25' } } });
    t.equal(set.status, 200);
    t.same(set.body.settings.defaultResources, { memory: '96m', cpus: '0.25' });
    t.equal(set.body.settings.sources.defaultResources, 'settings');
    const plain = await createService(s, project.id, testWebService('defaulted'));
    const unlimited = await createService(s, project.id, { ...testWebService('unlimited'), resources: { memory: null } });
    await Promise.all([deployed(t, s, plain.id, 'the defaulted app'), deployed(t, s, unlimited.id, 'the unlimited app')]);
    const a = await hostConfigOf(plain.id);
    t.equal(a.Memory, 96 * MB, 'the default memory');
    t.equal(a.NanoCpus, 250_000_000, 'the default CPUs');
    t.equal(a.PidsLimit, 1024, 'no pids anywhere: the profile\'s');
    const b = await hostConfigOf(unlimited.id);
    t.equal(b.Memory, 0, 'memory: null is no limit despite the default');
    t.equal(b.NanoCpus, 250_000_000, 'the keys it leaves out still take the default');
    t.same((await s.call('GET', `/api/services/${unlimited.id}/overview`)).body.resources, { memory: null, memoryReservation: null, cpus: '0.25', pids: null });

    const patched = await s.call('PATCH', `/api/services/${plain.id}`, { body: { resources: { memory: '256m' } } });
    t.equal(patched.status, 200);
    t.same(patched.body.service.resources, { memory: '256m' }, 'PATCH stores the new limits');
    t.same((await s.call('GET', `/api/services/${plain.id}/overview`)).body.resources, { memory: '256m', memoryReservation: null, cpus: '0.25', pids: null });
    const reset = await s.call('PATCH', `/api/services/${plain.id}`, { body: { resources: null } });
    t.same(reset.body.service.resources, {}, 'resources: null: every key back to the default');

    const cleared = await s.call('PATCH', '/api/settings', { body: { defaultResources: null } });
    t.same(cleared.body.settings.defaultResources, {});
    t.equal(cleared.body.settings.sources.defaultResources, 'environment');
  });

  t.test('a database service\'s limits land in its HostConfig', async (t) => {
    const db = await createService(s, project.id, databaseService('limited-db', 'postgres', { resources: { memory: '512m', cpus: '1', pids: 300 } }));
    await deployed(t, s, db.id, 'the limited database');
    const host = await hostConfigOf(db.id);
    t.equal(host.Memory, 512 * MB, 'Memory');
    t.equal(host.NanoCpus, 1_000_000_000, 'NanoCpus');
    t.equal(host.PidsLimit, 300, 'PidsLimit below the database profile\'s 4096');
    const usage = (await eventually(() => s.call('GET', `/api/services/${db.id}/overview`), (o) => o.body.usage !== null, 30_000)).body.usage;
    t.equal(usage?.memoryLimitBytes, 512 * MB, 'the overview shows a database\'s use too');
  });
});
