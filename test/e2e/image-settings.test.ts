import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deployEnv, logLines, probe, waitForDeployment } from '../helpers/deploy.js';
import { containersOf, docker, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { DB_IMAGE_ENV, DB_TEST_IMAGES, requireDbImages } from '../helpers/engine-containers.js';
import { startGitServer } from '../helpers/git-server.js';
import { startTestServer } from '../helpers/test-server.js';
import { LABEL } from '../../src/runtime/container-runtime.js';

// Tags of this test's own, on the stand-ins: the server started with other images, so only the settings can name these.
const NODE_RETAGGED = { repo: 'slipway/image-settings-node', tag: 'patched' };
const REDIS_RETAGGED = { repo: 'slipway/image-settings-redis', tag: 'patched' };
const ref = (image: { repo: string; tag: string }) => `${image.repo}:${image.tag}`;
// Not on this machine, and no registry is reachable: pulling them fails.
const ABSENT_NODE = 'slipway/image-settings-absent-node:none';
// Not "postgres": the service's user is postgres, a variable value the log and the explanation redact.
const ABSENT_POSTGRES = 'slipway/image-settings-absent-pg:none';

const nodeApp = {
  'package.json': JSON.stringify({ name: 'v', version: '1.0.0', scripts: { start: 'node server.js' } }),
  'server.js': "require('http').createServer((q, r) => r.end(process.version)).listen(process.env.PORT, '0.0.0.0');\n",
};
const database = (name: string, engine: string) => ({ name, repoFullName: `database:${engine}`, repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] });

t.test('image settings changed through the API are used by the next deployment, without a restart', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  await docker.getImage(TEST_IMAGES.node).tag(NODE_RETAGGED);
  await docker.getImage(DB_TEST_IMAGES.redis).tag(REDIS_RETAGGED);
  t.teardown(async () => {
    for (const image of [NODE_RETAGGED, REDIS_RETAGGED]) await docker.getImage(ref(image)).remove({ noprune: true }).catch(() => undefined);
  });
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/version', nodeApp);
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, ...DB_IMAGE_ENV });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Image settings');
  t.teardown(() => removeProjectLeftovers(p.id));
  const deploy = async (serviceId: string) => {
    const queued = await s.call('POST', `/api/services/${serviceId}/deployments`);
    t.equal(queued.status, 200, JSON.stringify(queued.body));
    return waitForDeployment(s, serviceId, queued.body.deployment.id as string, 300_000);
  };
  const explain = async (deploymentId: string) => {
    const r = await s.call('POST', `/api/deployments/${deploymentId}/explain-failure`, { body: { providerId: 'builtin', model: '' } });
    t.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.explanation as { summary: string; likelyCause: string; suggestedFix: string; commands: string[] };
  };

  const patched = await s.call('PATCH', '/api/settings', { body: { packNodeImage: ref(NODE_RETAGGED), dbImageRedis: ref(REDIS_RETAGGED) } });
  t.equal(patched.status, 200, JSON.stringify(patched.body));

  await t.test('a Node build runs FROM the image set, Node 20', async (t) => {
    const app = await createService(s, p.id, { name: 'version', repoFullName: 'acme/version', branch: 'main', internalPort: 8080 });
    const done = await deploy(app.id);
    const log = (await logLines(s, done.id)).join('\n');
    t.equal(done.status, 'succeeded', done.reason ?? '', { log: log.slice(-2000) });
    t.match(log, new RegExp(`FROM ${ref(NODE_RETAGGED)}`), 'the generated Dockerfile names the image of the setting');
    const answer = await probe(app.hostPort);
    t.equal(answer.status, 200);
    t.match(answer.body, /^v20\./, 'the Node stand-in is Node 20');
  });

  await t.test('a redis service runs the image set', async (t) => {
    const cache = await createService(s, p.id, database('cache', 'redis'));
    const done = await deploy(cache.id);
    t.equal(done.status, 'succeeded', done.reason ?? '');
    const containers = await containersOf({ [LABEL.service]: cache.id });
    t.same(
      containers.filter((c) => c.State === 'running').map((c) => c.Image),
      [ref(REDIS_RETAGGED)],
      'its container runs the re-tagged image',
    );
  });

  await t.test('a failed pull of a packbuilder base or a database image is explained with the setting to change', async (t) => {
    t.equal((await s.call('PATCH', '/api/settings', { body: { packNodeImage: ABSENT_NODE, dbImagePostgres: ABSENT_POSTGRES } })).status, 200);
    const app = await createService(s, p.id, { name: 'absent', repoFullName: 'acme/version', branch: 'main', internalPort: 8080 });
    const pg = await createService(s, p.id, database('main-db', 'postgres'));
    const [build, pull] = await Promise.all([deploy(app.id), deploy(pg.id)]);
    t.equal(build.status, 'failed');
    t.equal(pull.status, 'failed');
    t.match(pull.reason, new RegExp(`pulling ${ABSENT_POSTGRES}`));

    const forBuild = await explain(build.id);
    t.match(forBuild.summary, new RegExp(`${ABSENT_NODE} could not be pulled as the base image of the build`));
    t.match(forBuild.suggestedFix, /installation setting packNodeImage \(environment variable SLIPWAY_PACK_NODE_IMAGE\)/);
    t.match(forBuild.suggestedFix, /npm run images/);
    t.ok(forBuild.commands.includes('slipway settings set packNodeImage=IMAGE'), JSON.stringify(forBuild.commands));

    const forPull = await explain(pull.id);
    t.match(forPull.summary, new RegExp(`${ABSENT_POSTGRES} could not be pulled`));
    t.match(forPull.suggestedFix, /installation setting dbImagePostgres \(environment variable SLIPWAY_DB_IMAGE_POSTGRES\)/);
    t.ok(forPull.commands.includes('npm run images -- postgres'), JSON.stringify(forPull.commands));
  });
});
