import t from 'tap';
import { NO_RELEASE, decideCreate, decideDelete, decideRelease, decideStop, service, type ServiceState } from '../../commands/service/aggregate.js';
import type { Release, ServiceCreatedData, ServiceEvent } from '../../commands/service/events.js';

const data: ServiceCreatedData = {
  projectId: 'p1',
  name: 'web',
  slug: 'web',
  kind: 'image',
  repoFullName: 'image:web',
  repoUrl: 'docker-image',
  dockerImage: 'web:1',
  hostPort: 20001,
  databaseEngine: null,
  databasePublicEnabled: false,
  databasePublicHostname: null,
  postgresLogicalReplicationEnabled: false,
  branch: 'main',
  rootDir: null,
  gitToken: null,
  installCommand: null,
  buildCommand: null,
  startCommand: null,
  buildMethod: 'auto',
  dockerfilePath: null,
  runtimeMode: 'web',
  internalPort: 3000,
};
const v1: Release = { deploymentId: 'd1', containerName: 'slipway-web-d1', upstreamPort: 40001, buildMethod: null };

const apply = (state: ServiceState, events: ServiceEvent[]) => events.reduce(service.evolve, state);
const created = apply(service.initial, decideCreate(service.initial, data, []));
const running = apply(created, decideRelease(created, v1));

t.test('stop records the release it stops', async (t) => {
  t.same(decideStop(running), [{ type: 'ServiceStopped', data: { deploymentId: 'd1', containerName: 'slipway-web-d1' } }]);
  const stopped = apply(running, decideStop(running));
  t.equal(stopped.stopped, true);
  t.same(stopped.release, v1, 'the release is kept');
});

t.test('stop refuses with 409 a service that never ran, whose release was undone, or that is stopped', async (t) => {
  t.throws(() => decideStop(created), { code: 'conflict', message: /no running release/ });
  t.throws(() => decideStop(apply(running, decideRelease(running, NO_RELEASE))), { code: 'conflict' });
  const stopped = apply(running, decideStop(running));
  t.throws(() => decideStop(stopped), { code: 'conflict', message: /already stopped/ });
});

t.test('a stopped service is unknown once deleted', async (t) => {
  t.throws(() => decideStop(apply(running, decideDelete(running))), { code: 'not_found' });
  t.throws(() => decideStop(service.initial), { code: 'not_found' });
});

t.test('the next release ends the stop, even one of the same container on the same port', async (t) => {
  const stopped = apply(running, decideStop(running));
  const same = decideRelease(stopped, v1);
  t.same(same, [{ type: 'ServiceReleased', data: v1 }], 'a start of the same container is recorded');
  t.equal(apply(stopped, same).stopped, false);
  const v2 = { ...v1, deploymentId: 'd2', containerName: 'slipway-web-d2' };
  t.equal(apply(stopped, decideRelease(stopped, v2)).stopped, false);
  t.same(decideRelease(running, v1), [], 'a running service released again to the same container records nothing');
});
