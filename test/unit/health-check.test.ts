import t from 'tap';
import { service } from '../../commands/service/aggregate.js';
import { effectiveHealthCheck, healthCheck, parseExpectStatus, refusedHealthCheck, statusAccepted } from '../../commands/service/health-check.js';
import type { HealthObservation } from '../../commands/service/health.js';
import { deciderSpec } from '../helpers/decider-spec.js';
import { sourceServiceData } from '../helpers/service-fixture.js';

t.test('expectStatus: a status, a range or a list of them', async (t) => {
  t.same(parseExpectStatus('200'), [[200, 200]]);
  t.same(parseExpectStatus('200-399'), [[200, 399]]);
  t.same(parseExpectStatus('200,204, 300-302'), [[200, 200], [204, 204], [300, 302]]);
  for (const bad of ['', '2xx', '99', '600', '399-200', '200-300-400', '200,', 'abc', '200 - ', '1000']) t.equal(parseExpectStatus(bad), null, JSON.stringify(bad));
  const ranges = parseExpectStatus('200,300-399')!;
  t.ok(statusAccepted(ranges, 200));
  t.ok(statusAccepted(ranges, 399));
  t.notOk(statusAccepted(ranges, 204));
  t.notOk(statusAccepted(ranges, 500));
});

t.test('a check gets its defaults and bounds at the edge', async (t) => {
  t.same(healthCheck.parse({ type: 'http' }), { type: 'http', path: '/health', expectStatus: '200-399', intervalSeconds: 5, timeoutSeconds: 3, retries: 3, startPeriodSeconds: 0 });
  t.same(healthCheck.parse({ type: 'tcp', port: 6379 }), { type: 'tcp', port: 6379, intervalSeconds: 5, timeoutSeconds: 3, retries: 3, startPeriodSeconds: 0 });
  for (const bad of [
    { type: 'http', path: 'health' },
    { type: 'http', path: '/a b' },
    { type: 'http', expectStatus: '2xx' },
    { type: 'http', intervalSeconds: 0 },
    { type: 'http', timeoutSeconds: 1000 },
    { type: 'tcp', port: 70000 },
    { type: 'tcp', retries: 0 },
    { type: 'command', command: [] },
    { type: 'command' },
    { type: 'exec', command: ['true'] },
    { type: 'http', nanoseconds: 5 },
  ]) {
    t.notOk(healthCheck.safeParse(bad).success, JSON.stringify(bad));
  }
});

t.test('the default check depends on the kind; a stored one wins', async (t) => {
  t.match(effectiveHealthCheck({ kind: 'source', runtimeMode: 'web', healthCheck: undefined }), { check: { type: 'http', path: '/', expectStatus: '100-499', retries: 1 }, isDefault: true });
  t.match(effectiveHealthCheck({ kind: 'image', runtimeMode: 'static', healthCheck: 'default' }), { check: { type: 'http', path: '/' }, isDefault: true });
  t.same(effectiveHealthCheck({ kind: 'source', runtimeMode: 'worker', healthCheck: undefined }), { check: null, isDefault: true });
  t.match(effectiveHealthCheck({ kind: 'database', runtimeMode: 'web', healthCheck: undefined }), { check: { type: 'engine' }, isDefault: true });
  t.same(effectiveHealthCheck({ kind: 'source', runtimeMode: 'web', healthCheck: null }), { check: null, isDefault: false });
  t.equal(refusedHealthCheck('database', { type: 'tcp', intervalSeconds: 5, timeoutSeconds: 3, retries: 3, startPeriodSeconds: 0 }) !== null, true);
  t.equal(refusedHealthCheck('database', null) !== null, true);
  t.equal(refusedHealthCheck('database', { type: 'command', command: ['pg_isready'], intervalSeconds: 5, timeoutSeconds: 3, retries: 3, startPeriodSeconds: 0 }), null);
});

const spec = deciderSpec(service);
const released = spec.given(
  { type: 'ServiceCreated', data: { ...sourceServiceData, projectId: 'p', name: 'w', slug: 'w', repoFullName: null, repoUrl: 'https://x/y.git' } },
  { type: 'ServiceReleased', data: { deploymentId: 'd1', containerName: 'c1', upstreamPort: 40000, buildMethod: null } },
);
const look = (o: Partial<HealthObservation>): HealthObservation => ({ deploymentId: 'd1', running: true, exitCode: null, restarts: 0, probe: { ok: true, detail: 'HTTP 200 from /' }, failing: false, ...o });
const failing = look({ probe: { ok: false, detail: 'HTTP 500 from /health (expected 200-399)' }, failing: true });

t.test('health: only a change of state is recorded', async (t) => {
  t.same(released.state.health, { deploymentId: 'd1', status: 'healthy', crashed: false, restarts: 0 }, 'a release starts healthy: its gate passed');
  released.when('health', look({})).then(t, [], 'healthy and passing: nothing');
  released.when('health', look({ probe: { ok: false, detail: 'HTTP 500 from /' }, failing: false })).then(t, [], 'one failure below retries: nothing');

  const sick = released.when('health', failing);
  t.match(sick.events, [{ type: 'ServiceBecameUnhealthy', data: { deploymentId: 'd1', detail: 'HTTP 500 from /health (expected 200-399)', crashed: false, restarts: 0 } }]);
  const unhealthy = sick.given();
  unhealthy.when('health', failing).then(t, [], 'still failing: nothing');

  const down = unhealthy.when('health', look({ running: false, exitCode: 137, probe: null, restarts: 1 }));
  t.match(down.events, [{ type: 'ServiceBecameUnhealthy', data: { crashed: true, restarts: 1, detail: /exit code 137/ } }], 'failing to crashed is a change');
  const crashed = down.given();
  crashed.when('health', look({ running: false, exitCode: 137, probe: null, restarts: 1 })).then(t, [], 'still down: nothing');

  crashed.when('health', look({ restarts: 1, probe: { ok: false, detail: 'connection refused on port 3000' } })).then(t, [], 'up again, one failed probe: not yet recovered');
  const back = crashed.when('health', look({ restarts: 1 }));
  t.match(back.events, [{ type: 'ServiceRecovered', data: { deploymentId: 'd1', restarts: 1, detail: 'HTTP 200 from /' } }]);
  back.given().when('health', look({ restarts: 1 })).then(t, [], 'healthy again: nothing');
});

t.test('health: a restart between two looks is a crash; stale looks are dropped', async (t) => {
  t.match(released.when('health', look({ restarts: 2 })).events, [{ type: 'ServiceBecameUnhealthy', data: { crashed: true, restarts: 2, detail: /restarted by Docker \(2 restarts\)/ } }]);
  released.when('health', { ...failing, deploymentId: 'd0' }).then(t, [], 'a container that is no longer current');
  spec.given().when('health', failing).then(t, [], 'no service');
  const redeployed = released.when('health', failing).given({ type: 'ServiceReleased', data: { deploymentId: 'd2', containerName: 'c2', upstreamPort: 40001, buildMethod: null } });
  t.same(redeployed.state.health, { deploymentId: 'd2', status: 'healthy', crashed: false, restarts: 0 }, 'a new release resets health and restarts');
});
