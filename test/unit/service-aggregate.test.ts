import t from 'tap';
import { assertMovable, service } from '../../commands/service/aggregate.js';
import type { ServiceCreatedData } from '../../commands/service/events.js';
import { deciderSpec } from '../helpers/decider-spec.js';
import { sourceServiceData as data } from '../helpers/service-fixture.js';

const spec = deciderSpec(service);
const live = spec.given().when('create', data, [{ envId: 'e1', key: 'A', value: 'enc:v1:x' }]).given();

t.test('create records the service and its initial variables', async (t) => {
  t.equal(live.state.status, 'live');
  t.same([...live.state.env.keys()], ['A']);
  live.when('create', data, []).thenThrows(t, { code: 'conflict' });
});

t.test('update emits only what changed', async (t) => {
  live.when('update', { branch: 'main', internalPort: 3000 }).then(t, []);
  live.when('update', { branch: 'dev', internalPort: 3000 }).then(t, [{ type: 'ServiceUpdated', data: { changes: { branch: 'dev' } } }]);
  const updated = live.when('update', { runtimeMode: 'worker' }).state;
  t.equal(updated.service?.runtimeMode, 'worker');
});

t.test('resources: recorded when they change, compared by value', async (t) => {
  live.when('update', { resources: {} }).then(t, [], 'a service from before limits has none of its own: {} changes nothing');
  const limiting = live.when('update', { resources: { memory: '512m' } });
  limiting.then(t, [{ type: 'ServiceUpdated', data: { changes: { resources: { memory: '512m' } } } }]);
  const limited = limiting.given();
  limited.when('update', { resources: { memory: '512m' } }).then(t, [], 'the same limits again (a new object) append nothing');
  t.equal(limited.when('update', { resources: { memory: '1g' } }).events.length, 1);
});

t.test('variables upsert by key and delete by id', async (t) => {
  const [set] = live.when('setEnv', { envId: 'new-id', key: 'A', value: 'enc:v1:y' }).events;
  t.same(set, { type: 'EnvVarSet', data: { envId: 'e1', key: 'A', value: 'enc:v1:y' } }, 'the existing id is kept');
  live.when('deleteEnv', 'e1').then(t, [{ type: 'EnvVarDeleted', data: { envId: 'e1', key: 'A' } }]);
  live.when('deleteEnv', 'nope').thenThrows(t, { code: 'not_found' });
});

t.test('domains: workers and databases refuse, duplicates conflict', async (t) => {
  const withDomain = live.when('addDomain', 'd1', 'a.example.com').given();
  t.same([...withDomain.state.domains.values()], ['a.example.com']);
  withDomain.when('addDomain', 'd2', 'a.example.com').thenThrows(t, { code: 'conflict' });
  withDomain.when('update', { runtimeMode: 'worker' }).thenThrows(t, { code: 'conflict' });
  withDomain.when('changeDomain', 'd1', 'a.example.com').then(t, []);
  withDomain.when('changeDomain', 'd1', 'b.example.com').then(t, [
    { type: 'DomainChanged', data: { domainId: 'd1', hostname: 'b.example.com', previousHostname: 'a.example.com' } },
  ]);
  withDomain.when('removeDomain', 'd1').then(t, [{ type: 'DomainRemoved', data: { domainId: 'd1', hostname: 'a.example.com' } }]);
  live.when('removeDomain', 'd1').thenThrows(t, { code: 'not_found' });

  const worker = live.when('update', { runtimeMode: 'worker' }).given();
  worker.when('addDomain', 'd1', 'w.example.com').thenThrows(t, { code: 'validation_failed' });
  const db = spec.given().when('create', { ...data, kind: 'database', databaseEngine: 'postgres' }, []).given();
  db.when('addDomain', 'd1', 'db.example.com').thenThrows(t, { code: 'validation_failed' });
  db.when('update', { runtimeMode: 'worker' }).thenThrows(t, { code: 'validation_failed' });
  db.when('update', { internalPort: 5433 }).thenThrows(t, { code: 'validation_failed' }, 'a database keeps its engine port');
});

t.test('transfer and delete', async (t) => {
  live.when('transfer', 'p1').thenThrows(t, { code: 'validation_failed' });
  const moved = live.when('transfer', 'p2').given();
  t.equal(moved.state.service?.projectId, 'p2');
  const gone = moved.when('delete').given();
  t.equal(gone.state.status, 'deleted');
  gone.when('delete').thenThrows(t, { code: 'not_found' });
  gone.when('setEnv', { envId: 'x', key: 'B', value: 'v' }).thenThrows(t, { code: 'not_found' });
  gone.when('transfer', 'p3').thenThrows(t, { code: 'not_found' });
});

t.test('a move: only a running database, to another node; its release and node are recorded together', async (t) => {
  const database: ServiceCreatedData = { ...data, kind: 'database', databaseEngine: 'postgres', nodeId: 'worker1' };
  const created = spec.given({ type: 'ServiceCreated', data: database });
  const release = { deploymentId: 'd1', containerName: 'slipway-db-d1', upstreamPort: 20001, buildMethod: null };
  t.throws(() => assertMovable(created.state, 'manager1'), /no running release/, 'a database never deployed has nothing to move');
  const running = spec.given(...created.history, { type: 'ServiceReleased', data: release });
  t.throws(() => assertMovable(running.state, 'worker1'), /on that node already/);
  t.doesNotThrow(() => assertMovable(running.state, 'manager1'));
  t.throws(() => assertMovable(spec.given(...running.history, { type: 'ServiceStopped', data: { deploymentId: 'd1', containerName: 'slipway-db-d1' } }).state, 'manager1'), /stopped/);
  const web = spec.given({ type: 'ServiceCreated', data }, { type: 'ServiceReleased', data: release });
  t.throws(() => assertMovable(web.state, 'manager1'), /only a database service moves/);

  const moved = running.when('release', { ...release, deploymentId: 'd2', containerName: 'slipway-db-d2' }, { nodeId: 'manager1' });
  t.same(
    moved.events.map((e) => e.type),
    ['ServiceReleased', 'ServiceMoved'],
  );
  t.equal(moved.state.service?.nodeId, 'manager1', 'the service is on the node it moved to');
  t.same(running.when('release', { ...release, deploymentId: 'd3' }).events.map((e) => e.type), ['ServiceReleased'], 'a plain release moves nothing');
});
