import t from 'tap';
import {
  decideAddDomain,
  decideChangeDomain,
  decideCreate,
  decideDelete,
  decideDeleteEnv,
  decideRemoveDomain,
  decideSetEnv,
  decideTransfer,
  decideUpdate,
  service,
  type ServiceState,
} from '../../commands/service/aggregate.js';
import type { ServiceCreatedData, ServiceEvent } from '../../commands/service/events.js';

const data: ServiceCreatedData = {
  projectId: 'p1',
  name: 'web',
  slug: 'web',
  kind: 'source',
  repoFullName: 'acme/web',
  repoUrl: 'https://github.com/acme/web.git',
  dockerImage: null,
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

const apply = (state: ServiceState, events: ServiceEvent[]) => events.reduce(service.evolve, state);
const live = apply(service.initial, decideCreate(service.initial, data, [{ envId: 'e1', key: 'A', value: 'enc:v1:x' }]));

t.test('create records the service and its initial variables', async (t) => {
  t.equal(live.status, 'live');
  t.same([...live.env.keys()], ['A']);
  t.throws(() => decideCreate(live, data, []), { code: 'conflict' });
});

t.test('update emits only what changed', async (t) => {
  t.same(decideUpdate(live, { branch: 'main', internalPort: 3000 }), []);
  t.same(decideUpdate(live, { branch: 'dev', internalPort: 3000 }), [{ type: 'ServiceUpdated', data: { changes: { branch: 'dev' } } }]);
  const updated = apply(live, decideUpdate(live, { runtimeMode: 'worker' }));
  t.equal(updated.service?.runtimeMode, 'worker');
});

t.test('resources: recorded when they change, compared by value', async (t) => {
  t.same(decideUpdate(live, { resources: {} }), [], 'a service from before limits has none of its own: {} changes nothing');
  const events = decideUpdate(live, { resources: { memory: '512m' } });
  t.same(events, [{ type: 'ServiceUpdated', data: { changes: { resources: { memory: '512m' } } } }]);
  const limited = apply(live, events);
  t.same(decideUpdate(limited, { resources: { memory: '512m' } }), [], 'the same limits again (a new object) append nothing');
  t.equal(decideUpdate(limited, { resources: { memory: '1g' } }).length, 1);
});

t.test('variables upsert by key and delete by id', async (t) => {
  const [set] = decideSetEnv(live, { envId: 'new-id', key: 'A', value: 'enc:v1:y' });
  t.same(set, { type: 'EnvVarSet', data: { envId: 'e1', key: 'A', value: 'enc:v1:y' } }, 'the existing id is kept');
  t.same(decideDeleteEnv(live, 'e1'), [{ type: 'EnvVarDeleted', data: { envId: 'e1', key: 'A' } }]);
  t.throws(() => decideDeleteEnv(live, 'nope'), { code: 'not_found' });
});

t.test('domains: workers and databases refuse, duplicates conflict', async (t) => {
  const withDomain = apply(live, decideAddDomain(live, 'd1', 'a.example.com'));
  t.same([...withDomain.domains.values()], ['a.example.com']);
  t.throws(() => decideAddDomain(withDomain, 'd2', 'a.example.com'), { code: 'conflict' });
  t.throws(() => decideUpdate(withDomain, { runtimeMode: 'worker' }), { code: 'conflict' });
  t.same(decideChangeDomain(withDomain, 'd1', 'a.example.com'), []);
  t.same(decideChangeDomain(withDomain, 'd1', 'b.example.com'), [
    { type: 'DomainChanged', data: { domainId: 'd1', hostname: 'b.example.com', previousHostname: 'a.example.com' } },
  ]);
  t.same(decideRemoveDomain(withDomain, 'd1'), [{ type: 'DomainRemoved', data: { domainId: 'd1', hostname: 'a.example.com' } }]);
  t.throws(() => decideRemoveDomain(live, 'd1'), { code: 'not_found' });

  const worker = apply(live, decideUpdate(live, { runtimeMode: 'worker' }));
  t.throws(() => decideAddDomain(worker, 'd1', 'w.example.com'), { code: 'validation_failed' });
  const db = apply(service.initial, decideCreate(service.initial, { ...data, kind: 'database', databaseEngine: 'postgres' }, []));
  t.throws(() => decideAddDomain(db, 'd1', 'db.example.com'), { code: 'validation_failed' });
  t.throws(() => decideUpdate(db, { runtimeMode: 'worker' }), { code: 'validation_failed' });
  t.throws(() => decideUpdate(db, { internalPort: 5433 }), { code: 'validation_failed' }, 'a database keeps its engine port');
});

t.test('transfer and delete', async (t) => {
  t.throws(() => decideTransfer(live, 'p1'), { code: 'validation_failed' });
  const moved = apply(live, decideTransfer(live, 'p2'));
  t.equal(moved.service?.projectId, 'p2');
  const gone = apply(moved, decideDelete(moved));
  t.equal(gone.status, 'deleted');
  for (const decide of [() => decideDelete(gone), () => decideSetEnv(gone, { envId: 'x', key: 'B', value: 'v' }), () => decideTransfer(gone, 'p3')]) {
    t.throws(decide, { code: 'not_found' });
  }
});

t.test('a move: only a running database, to another node; its release and node are recorded together', async (t) => {
  const { assertMovable, decideRelease } = await import('../../commands/service/aggregate.js');
  const database: ServiceCreatedData = { ...data, kind: 'database', databaseEngine: 'postgres', nodeId: 'worker1' };
  const created = service.evolve(service.initial, { type: 'ServiceCreated', data: database });
  const release = { deploymentId: 'd1', containerName: 'slipway-db-d1', upstreamPort: 20001, buildMethod: null };
  t.throws(() => assertMovable(created, 'manager1'), /no running release/, 'a database never deployed has nothing to move');
  const running = service.evolve(created, { type: 'ServiceReleased', data: release });
  t.throws(() => assertMovable(running, 'worker1'), /on that node already/);
  t.doesNotThrow(() => assertMovable(running, 'manager1'));
  t.throws(() => assertMovable(service.evolve(running, { type: 'ServiceStopped', data: { deploymentId: 'd1', containerName: 'slipway-db-d1' } }), 'manager1'), /stopped/);
  const web = service.evolve(service.evolve(service.initial, { type: 'ServiceCreated', data }), { type: 'ServiceReleased', data: release });
  t.throws(() => assertMovable(web, 'manager1'), /only a database service moves/);

  const moved = decideRelease(running, { ...release, deploymentId: 'd2', containerName: 'slipway-db-d2' }, { nodeId: 'manager1' });
  t.same(
    moved.map((e) => e.type),
    ['ServiceReleased', 'ServiceMoved'],
  );
  const after = moved.reduce((s, e) => service.evolve(s, e), running);
  t.equal(after.service?.nodeId, 'manager1', 'the service is on the node it moved to');
  t.same(decideRelease(running, { ...release, deploymentId: 'd3' }).map((e) => e.type), ['ServiceReleased'], 'a plain release moves nothing');
});
