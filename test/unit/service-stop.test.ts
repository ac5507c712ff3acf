import t from 'tap';
import { NO_RELEASE, service } from '../../commands/service/aggregate.js';
import type { Release } from '../../commands/service/events.js';
import { deciderSpec } from '../helpers/decider-spec.js';
import { imageServiceData as data } from '../helpers/service-fixture.js';

const spec = deciderSpec(service);
const v1: Release = { deploymentId: 'd1', containerName: 'slipway-web-d1', upstreamPort: 40001, buildMethod: null };

const created = spec.given().when('create', data, []).given();
const running = created.when('release', v1).given();

t.test('stop records the release it stops', async (t) => {
  running.when('stop').then(t, [{ type: 'ServiceStopped', data: { deploymentId: 'd1', containerName: 'slipway-web-d1' } }]);
  const stopped = running.when('stop').state;
  t.equal(stopped.stopped, true);
  t.same(stopped.release, v1, 'the release is kept');
});

t.test('stop refuses with 409 a service that never ran, whose release was undone, or that is stopped', async (t) => {
  created.when('stop').thenThrows(t, { code: 'conflict', message: /no running release/ });
  running.when('release', NO_RELEASE).given().when('stop').thenThrows(t, { code: 'conflict' });
  const stopped = running.when('stop').given();
  stopped.when('stop').thenThrows(t, { code: 'conflict', message: /already stopped/ });
});

t.test('a stopped service is unknown once deleted', async (t) => {
  running.when('delete').given().when('stop').thenThrows(t, { code: 'not_found' });
  spec.given().when('stop').thenThrows(t, { code: 'not_found' });
});

t.test('the next release ends the stop, even one of the same container on the same port', async (t) => {
  const stopped = running.when('stop').given();
  const same = stopped.when('release', v1);
  same.then(t, [{ type: 'ServiceReleased', data: v1 }], 'a start of the same container is recorded');
  t.equal(same.state.stopped, false);
  const v2 = { ...v1, deploymentId: 'd2', containerName: 'slipway-web-d2' };
  t.equal(stopped.when('release', v2).state.stopped, false);
  running.when('release', v1).then(t, [], 'a running service released again to the same container records nothing');
});
