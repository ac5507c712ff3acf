import { execFileSync } from 'node:child_process';
import t from 'tap';
import { createKey, createProject, createService, testWebService } from '../helpers/http-resources.js';
import { deploy, deployEnv, outcome, releasesUpTo, waitForDeployment } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { startTestServer } from '../helpers/test-server.js';

// The test image under another id (a label more): a release of it runs another image.
const RELABELLED = 'slipway/release-changes-web:other';

t.test('releases say who made them and what changed since the one before, by name only', { skip: await requireDocker() }, async (t) => {
  execFileSync('docker', ['build', '-q', '-t', RELABELLED, '-'], { input: `FROM ${TEST_IMAGES.web}\nLABEL slipway.test=release-changes\n` });
  t.teardown(() => docker.getImage(RELABELLED).remove({ noprune: true }).catch(() => undefined));
  const { env } = await deployEnv();
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Release changes');
  t.teardown(() => removeProjectLeftovers(project.id));
  const web = await createService(s, project.id, {
    ...testWebService('web'),
    env: [
      { key: 'GREETING', value: 'hello' },
      { key: 'OLD', value: 'going-away' },
      { key: 'DATABASE_URL', value: 'postgres://first-secret-value' },
    ],
  });
  const scoped = await createKey(s, 'write', [project.id]);

  const first = await s.call('POST', `/api/services/${web.id}/deployments`, { key: scoped.secret });
  t.equal(first.status, 200, JSON.stringify(first.body));
  t.match(first.body.deployment, { actor: `key:${scoped.key.id}`, actorName: 'write-key' }, 'the queued answer says who started it');
  t.equal(outcome(await waitForDeployment(s, web.id, first.body.deployment.id)), 'succeeded');

  // New limits re-create the running release: a release of the same image and variables, another setting.
  const limited = await s.call('PATCH', `/api/services/${web.id}`, { body: { resources: { memory: '256m' } } });
  t.equal(limited.status, 200, JSON.stringify(limited.body));
  t.equal(outcome(await waitForDeployment(s, web.id, limited.body.deployment.id)), 'succeeded');

  const variables = (await s.call('GET', `/api/services/${web.id}/overview`)).body.env as { id: string; key: string }[];
  t.equal((await s.call('DELETE', `/api/services/${web.id}/env/${variables.find((v) => v.key === 'OLD')!.id}`)).status, 200);
  await s.call('POST', `/api/services/${web.id}/env`, { body: { key: 'API_KEY', value: 'brand-new-secret-value' } });
  await s.call('POST', `/api/services/${web.id}/env`, { body: { key: 'DATABASE_URL', value: 'postgres://second-secret-value' } });
  t.equal((await s.call('PATCH', `/api/services/${web.id}`, { body: { dockerImage: RELABELLED } })).status, 200);
  t.equal(outcome((await deploy(s, web.id)).done), 'succeeded', 'the relabelled image deployed');

  const listed = await releasesUpTo(s, web.id, 3);
  const [v3, v2, v1] = listed;
  t.equal(v1!.changes, null, 'the first release has nothing to differ from');
  t.match(v1, { actor: `key:${scoped.key.id}`, actorName: 'write-key' }, 'who deployed it: the scoped key, by name');
  t.same(v2!.changes, { image: false, variables: { added: [], removed: [], changed: [] }, settings: ['resources'] }, 'a config deployment: only a setting');
  t.same(v3!.changes, { image: true, variables: { added: ['API_KEY'], removed: ['OLD'], changed: ['DATABASE_URL'] }, settings: [] }, 'image and variables by name');
  t.match(v3!.actor, /^key:/, 'the bootstrap key');
  t.notMatch(JSON.stringify(listed), /secret-value|going-away|hello/, 'no variable value leaves the server');

  const rolled = await s.call('POST', `/api/services/${web.id}/rollback`, { body: { releaseId: v1!.id } });
  t.equal(rolled.status, 200, JSON.stringify(rolled.body));
  t.equal(outcome(await waitForDeployment(s, web.id, rolled.body.deployment.id)), 'succeeded');
  const v4 = (await releasesUpTo(s, web.id, 4))[0]!;
  t.same(v4.changes, { image: true, variables: { added: ['OLD'], removed: ['API_KEY'], changed: ['DATABASE_URL'] }, settings: ['resources'] }, 'rolled back to v1: its image, variables and limits again');

  const deployments = (await s.call('GET', `/api/services/${web.id}/deployments`)).body.deployments as { id: string; actor: string | null; actorName: string | null }[];
  t.match(deployments.find((d) => d.id === first.body.deployment.id), { actor: `key:${scoped.key.id}`, actorName: 'write-key' }, 'the deployments list says who started each');
  t.ok(deployments.every((d) => d.actor?.startsWith('key:')), 'every one of these was started by a key');
  const one = await s.call('GET', `/api/deployments/${first.body.deployment.id}`);
  t.match(one.body.deployment, { actor: `key:${scoped.key.id}`, actorName: 'write-key' });
  const overview = await s.call('GET', `/api/services/${web.id}/overview`);
  t.ok((overview.body.deployments as { actor: string | null }[]).every((d) => d.actor !== null), 'and the overview’s');
});
