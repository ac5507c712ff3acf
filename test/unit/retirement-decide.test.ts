import t from 'tap';
import { decideRetire as decideRetireProject, project } from '../../commands/project/aggregate.js';
import type { ProjectEvent } from '../../commands/project/events.js';
import { decideRetire as decideRetireService, service } from '../../commands/service/aggregate.js';
import type { ServiceCreatedData, ServiceEvent } from '../../commands/service/events.js';
import { reservationOwner } from '../../projections/reservations.js';

const created: ServiceCreatedData = {
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

/** Given events, when retire, then events (or the error code). */
const givenService = (events: ServiceEvent[]) => events.reduce(service.evolve, service.initial);
const givenProject = (events: ProjectEvent[]) => events.reduce(project.evolve, project.initial);

t.test('a service is retired once, and only after its deletion', async (t) => {
  const live: ServiceEvent[] = [{ type: 'ServiceCreated', data: created }];
  t.throws(() => decideRetireService(givenService([])), { code: 'not_found' }, 'no service: nothing to retire');
  t.throws(() => decideRetireService(givenService(live)), { code: 'conflict' }, 'a live service is not retired');
  const deleted: ServiceEvent[] = [...live, { type: 'ServiceDeleted', data: { projectId: 'p1' } }];
  t.same(decideRetireService(givenService(deleted)), [{ type: 'ServiceRetired', data: { projectId: 'p1' } }]);
  const moved: ServiceEvent[] = [
    ...live,
    { type: 'ServiceTransferred', data: { fromProjectId: 'p1', toProjectId: 'p2' } },
    { type: 'ServiceDeleted', data: { projectId: 'p2' } },
  ];
  t.same(decideRetireService(givenService(moved)), [{ type: 'ServiceRetired', data: { projectId: 'p2' } }], 'retired from the project it was in');
  const retired = givenService([...deleted, { type: 'ServiceRetired', data: { projectId: 'p1' } }]);
  t.equal(retired.retired, true);
  t.same(decideRetireService(retired), [], 'deciding it twice says nothing');
});

t.test('a project is retired once, and only after its deletion', async (t) => {
  const live: ProjectEvent[] = [{ type: 'ProjectCreated', data: { name: 'Shop', slug: 'shop', description: '' } }];
  t.throws(() => decideRetireProject(givenProject([])), { code: 'not_found' });
  t.throws(() => decideRetireProject(givenProject(live)), { code: 'conflict' });
  const deleted: ProjectEvent[] = [...live, { type: 'ProjectDeleted', data: { slug: 'shop' } }];
  t.same(decideRetireProject(givenProject(deleted)), [{ type: 'ProjectRetired', data: { slug: 'shop' } }]);
  const retired = givenProject([...deleted, { type: 'ProjectRetired', data: { slug: 'shop' } }]);
  t.equal(retired.retired, true);
  t.same(decideRetireProject(retired), [], 'deciding it twice says nothing');
});

t.test('a reservation belongs to the aggregate before the slash', async (t) => {
  t.same(reservationOwner('project-slug', 'p1'), { type: 'project', id: 'p1' });
  t.same(reservationOwner('service-name', 's1'), { type: 'service', id: 's1' });
  t.same(reservationOwner('host-port', 's1'), { type: 'service', id: 's1' });
  t.same(reservationOwner('hostname', 's1/d1'), { type: 'service', id: 's1' }, 'a custom domain: its service');
});
