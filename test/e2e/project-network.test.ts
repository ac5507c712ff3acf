import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { containersOf, docker, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { testWebService } from '../helpers/http-resources.js';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { startTestServer } from '../helpers/test-server.js';

const networkExists = async (projectId: string) => (await docker.listNetworks({ filters: { name: [`slipway-${projectId}`] } })).some((n) => n.Name === `slipway-${projectId}`);

t.test('deleting a project removes its Docker network, and only its own', { skip: await requireDocker() }, async (t) => {
  const { env } = await deployEnv();
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const [gone, kept] = [await createProject(s, 'Gone'), await createProject(s, 'Kept')];
  t.teardown(() => removeProjectLeftovers(gone.id));
  t.teardown(() => removeProjectLeftovers(kept.id));
  const services = [await createService(s, gone.id, testWebService('one')), await createService(s, gone.id, testWebService('two')), await createService(s, kept.id, testWebService('other'))];
  for (const r of await Promise.all(services.map((svc) => deploy(s, svc.id)))) t.equal(outcome(r.done), 'succeeded');
  t.ok(await networkExists(gone.id), 'a deployed project has its network');
  t.ok(await networkExists(kept.id));

  t.equal((await s.call('DELETE', `/api/projects/${gone.id}`)).status, 200);
  let exists = true;
  for (let i = 0; i < 100 && exists; i++) {
    await new Promise((r) => setTimeout(r, 200));
    exists = await networkExists(gone.id);
  }
  t.notOk(exists, 'its network is gone');
  t.same(await containersOf({ [LABEL.project]: gone.id }), [], 'with its containers');
  t.ok(await networkExists(kept.id), 'another project’s network stays');
  t.equal((await containersOf({ [LABEL.project]: kept.id })).length, 1, 'and so does its container');
});
