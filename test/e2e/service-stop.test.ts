import { connect } from 'node:net';
import t from 'tap';
import { requireCaddy } from '../helpers/caddy.js';
import { deployEnv, deploy, logLines, outcome, probe, waitForDeployment } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { addDomain, createProject, createService, databaseService } from '../helpers/http-resources.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const containerState = async (name: string) => (await docker.getContainer(name).inspect()).State;
const overviewOf = async (s: TestServer, serviceId: string) => (await s.call('GET', `/api/services/${serviceId}/overview`)).body.service;

/** Whether a TCP connection to the port is accepted. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const end = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => end(true));
    socket.once('error', () => end(false));
    socket.setTimeout(2000, () => end(false));
  });

t.test('stop: the container is stopped and kept, its routes answer 503 from Caddy, a restart of Slipway keeps it stopped', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  const { env, proxyPort } = await deployEnv();
  let s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Stops');
  t.teardown(() => removeProjectLeftovers(p.id));
  const svc = await createService(s, p.id, { name: 'Shop <front>', repoUrl: 'docker-image', dockerImage: TEST_IMAGES.web, internalPort: 8000 });
  await addDomain(s, svc.id, 'shop.stop.test');

  const never = await s.call('POST', `/api/services/${svc.id}/stop`);
  t.equal(never.status, 409, 'a service that never ran cannot be stopped');
  t.match(never.body, { error: { code: 'conflict', message: /no running release/ } });

  const { done } = await deploy(s, svc.id);
  t.equal(outcome(done), 'succeeded');
  t.equal((await probe(svc.hostPort)).status, 200, 'it answers on its host port');
  t.equal((await probe(proxyPort, 'shop.stop.test')).status, 200, 'and on its domain');
  const container = `slipway-${svc.slug}-${done.id}`;

  const stopped = await s.call('POST', `/api/services/${svc.id}/stop`);
  t.equal(stopped.status, 200);
  t.match(stopped.body, { service: { id: svc.id, status: 'stopped', reachable: false }, proxy: { ok: true } });

  for (const [where, answer] of [
    ['host port', await probe(svc.hostPort)],
    ['domain', await probe(proxyPort, 'shop.stop.test')],
  ] as const) {
    t.equal(answer.status, 503, `its ${where} answers 503`);
    t.match(answer.body, '<h1>This site is stopped</h1>', `with a page saying so on its ${where}`);
    t.notMatch(answer.body, /Shop|front|slipway-|127\.0\.0\.1|8000|sha256/, 'and nothing of what it is called inside Slipway or how it runs');
  }
  await t.resolveMatch(
    (async () => {
      for (let i = 0; i < 100; i++) {
        if (!(await containerState(container)).Running) return 'stopped';
        await new Promise((r) => setTimeout(r, 100));
      }
      return 'running';
    })(),
    'stopped',
    'the container is stopped by the deployer',
  );
  t.ok(await docker.getContainer(container).inspect(), 'and kept');

  const again = await s.call('POST', `/api/services/${svc.id}/stop`);
  t.equal(again.status, 409, 'stopping a stopped service is a conflict');
  t.match(again.body, { error: { code: 'conflict', message: /already stopped/ } });
  t.match(await overviewOf(s, svc.id), { status: 'stopped' }, 'the overview says stopped');
  const listed = (await s.call('GET', `/api/projects/${p.id}`)).body.project.services.find((x: { id: string }) => x.id === svc.id);
  t.match(listed, { status: 'stopped' }, 'and so does the list');

  // The start-up sweep starts a stopped current container again (a database redeploy cut short), except this one.
  await s.stopKeepingData();
  s = await startTestServer(env, s.dataDir);
  await new Promise((r) => setTimeout(r, 1000));
  t.equal((await containerState(container)).Running, false, 'a restart of Slipway does not start it again');
  t.equal((await probe(svc.hostPort)).status, 503, 'and its route still answers the stopped page');

  const started = await s.call('POST', `/api/services/${svc.id}/start`);
  t.equal(started.status, 200, JSON.stringify(started.body));
  t.match(started.body.deployment, { kind: 'start', status: 'queued' }, 'start is a deployment of the current release');
  t.equal(outcome(await waitForDeployment(s, svc.id, started.body.deployment.id)), 'succeeded');
  t.match(await overviewOf(s, svc.id), { status: 'active', reachable: true }, 'the start ends the stop');
  t.equal((await probe(svc.hostPort)).status, 200, 'and it answers again');
  t.notMatch((await logLines(s, started.body.deployment.id)).join('\n'), /Pulling|Cloning/, 'without a pull or a build');
  const twice = await s.call('POST', `/api/services/${svc.id}/start`);
  t.equal(twice.status, 409, 'starting a running service is a conflict');
  t.match(twice.body.error.message, /not stopped/);
  const restarted = await s.call('POST', `/api/services/${svc.id}/restart`);
  t.match(restarted.body.deployment, { kind: 'restart' });
  t.equal(outcome(await waitForDeployment(s, svc.id, restarted.body.deployment.id)), 'succeeded', 'a restart of a running service');

  const redeployed = await deploy(s, svc.id);
  t.equal(outcome(redeployed.done), 'succeeded');
  t.match(await overviewOf(s, svc.id), { status: 'active', reachable: true });
});

t.test('stop of a database service stops its container: its port refuses', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const { env } = await deployEnv(DB_IMAGE_ENV);
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Stopped database');
  t.teardown(() => removeProjectLeftovers(p.id));
  const cache = await createService(s, p.id, databaseService('cache', 'redis'));
  t.equal(outcome((await deploy(s, cache.id)).done), 'succeeded');
  t.equal(await accepts(cache.hostPort), true, 'it accepts connections on its port');
  const stopped = await s.call('POST', `/api/services/${cache.id}/stop`);
  t.match(stopped.body, { service: { status: 'stopped' } });
  let refused = false;
  for (let i = 0; i < 100 && !refused; i++) {
    refused = !(await accepts(cache.hostPort));
    if (!refused) await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(refused, 'its port refuses once stopped');
});
