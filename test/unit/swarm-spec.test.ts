import t from 'tap';
import { swarmServiceSpec, type SwarmServiceInput } from '../../src/cluster/swarm-spec.js';
import { PRIVILEGES } from '../../src/runtime/container-privileges.js';
import { engineAppliesSpecNoNewPrivileges } from '../../src/cluster/engine-api.js';

const input: SwarmServiceInput = {
  name: 'slipway-s-1',
  image: '10.0.0.1:5443/slipway/1@sha256:abc',
  env: { PORT: '8000', GREETING: 'hi' },
  labels: { 'slipway.service': '1' },
  replicas: 3,
  nodeLabels: { zone: 'b', disk: 'ssd' },
  network: 'slipway-o-p',
  aliases: ['web'],
  healthCheck: { type: 'http', path: '/health', expectStatus: '200-399', intervalSeconds: 2, timeoutSeconds: 1, retries: 3, startPeriodSeconds: 4 },
  internalPort: 8000,
  limits: { memoryBytes: 256 * 1024 ** 2, memoryReservationBytes: 64 * 1024 ** 2, cpus: 0.5, pids: 128 },
  stopGraceSeconds: 10,
  engineApiVersion: '1.41',
  probe: { path: '/run/slipway-probe', configId: 'cfg1', configName: 'slipway-probe-x' },
};

t.test('a release as a Swarm service: start-first one at a time, rolled back by Swarm, dnsrr, placement, limits', async (t) => {
  const spec = swarmServiceSpec(input);
  t.match(spec.UpdateConfig, { Parallelism: 1, Order: 'start-first', FailureAction: 'rollback', MaxFailureRatio: 0 });
  t.equal(spec.UpdateConfig.Monitor, 5 * 1e9, 'each new task is watched 5 s once healthy');
  t.match(spec.RollbackConfig, { Parallelism: 1, Order: 'start-first', FailureAction: 'pause' });
  t.same(spec.EndpointSpec, { Mode: 'dnsrr' });
  t.same(spec.Mode, { Replicated: { Replicas: 3 } });
  t.same(spec.TaskTemplate.Placement.Constraints, ['node.labels.zone==b', 'node.labels.disk==ssd']);
  t.same(spec.TaskTemplate.Resources, { Limits: { NanoCPUs: 5e8, MemoryBytes: 256 * 1024 ** 2, Pids: 128 }, Reservations: { MemoryBytes: 64 * 1024 ** 2 } });
  t.same(spec.TaskTemplate.Networks, [{ Target: 'slipway-o-p', Aliases: ['web'] }]);
  t.same(spec.TaskTemplate.ContainerSpec.Env, ['PORT=8000', 'GREETING=hi']);
  t.equal(spec.TaskTemplate.ContainerSpec.Image, input.image, 'by digest');
});

t.test('health checks run inside the task: the probe for HTTP and TCP, the command as given, none without a check', async (t) => {
  const http = swarmServiceSpec(input).TaskTemplate.ContainerSpec;
  t.same(http.HealthCheck, { Test: ['CMD', '/run/slipway-probe', 'http', '8000', '/health', '200-399', '1'], Interval: 1e9, Timeout: 1e9, Retries: 6, StartPeriod: 4e9 }, 'checked every second, as long to unhealthy as every 2 s × 3');
  t.same(http.Configs, [{ File: { Name: '/run/slipway-probe', UID: '0', GID: '0', Mode: 0o555 }, ConfigID: 'cfg1', ConfigName: 'slipway-probe-x' }], 'the probe is mounted from its config');
  const tcp = swarmServiceSpec({ ...input, healthCheck: { type: 'tcp', port: 9000, intervalSeconds: 5, timeoutSeconds: 2, retries: 1, startPeriodSeconds: 0 } }).TaskTemplate.ContainerSpec;
  t.same(tcp.HealthCheck?.Test, ['CMD', '/run/slipway-probe', 'tcp', '9000', '2'], 'its own port');
  t.match(tcp.HealthCheck, { Interval: 1e9, Retries: 5 }, 'a task is checked one second after it starts, not five');
  const command = swarmServiceSpec({ ...input, probe: undefined, healthCheck: { type: 'command', command: ['pg_isready'], intervalSeconds: 5, timeoutSeconds: 2, retries: 1, startPeriodSeconds: 0 } }).TaskTemplate.ContainerSpec;
  t.same(command.HealthCheck?.Test, ['CMD', 'pg_isready']);
  t.notOk('Configs' in command, 'no probe needed');
  const none = swarmServiceSpec({ ...input, probe: undefined, healthCheck: null });
  t.notOk('HealthCheck' in none.TaskTemplate.ContainerSpec, 'healthy when running');
  t.throws(() => swarmServiceSpec({ ...input, probe: undefined }), /needs the probe/);
  t.same(swarmServiceSpec({ ...input, limits: {} }).TaskTemplate.Resources, { Limits: { Pids: 1024 }, Reservations: {} }, 'no limits: only the default task limit');
});

t.test('a task gets the privileges of an app container on one server: capabilities dropped, a pids limit', async (t) => {
  const spec = swarmServiceSpec(input).TaskTemplate;
  t.same(spec.ContainerSpec.CapabilityDrop, PRIVILEGES.app.capDrop, 'the app profile’s dropped capabilities');
  t.notOk('CapabilityAdd' in spec.ContainerSpec, 'none added');
  t.equal(spec.Resources.Limits.Pids, 128, 'the service’s own pids limit when lower');
  t.equal(swarmServiceSpec({ ...input, limits: { pids: 100_000 } }).TaskTemplate.Resources.Limits.Pids, PRIVILEGES.app.pidsLimit, 'never above the profile’s');
  t.equal(swarmServiceSpec({ ...input, limits: {} }).TaskTemplate.Resources.Limits.Pids, PRIVILEGES.app.pidsLimit, 'the profile’s by default');
});

t.test('no-new-privileges is in the spec once the manager speaks API 1.46, never before', async (t) => {
  const privileges = (engineApiVersion: string) => (swarmServiceSpec({ ...input, engineApiVersion }).TaskTemplate.ContainerSpec as { Privileges?: unknown }).Privileges;
  t.equal(privileges('1.41'), undefined, 'Docker 20.10 (API 1.41): not in the spec, the node’s daemon decides');
  t.equal(privileges('1.45'), undefined, 'API 1.45: not yet');
  t.same(privileges('1.46'), { NoNewPrivileges: true }, 'API 1.46 (Docker 27.0): set');
  t.same(privileges('1.47'), { NoNewPrivileges: true }, 'later: set');
  t.same(privileges('2.0'), { NoNewPrivileges: true }, 'a later major: set');
  t.equal(privileges(''), undefined, 'an engine that gave no version: not set');
});

t.test('which node engines apply no-new-privileges from a spec', async (t) => {
  t.notOk(engineAppliesSpecNoNewPrivileges('20.10.24+dfsg1'), 'Debian’s 20.10: no');
  t.notOk(engineAppliesSpecNoNewPrivileges('26.1.4'), '26: no');
  t.ok(engineAppliesSpecNoNewPrivileges('27.0.3'), '27: yes');
  t.ok(engineAppliesSpecNoNewPrivileges('28.5.1'), '28: yes');
  t.notOk(engineAppliesSpecNoNewPrivileges(''), 'unknown: no');
});
