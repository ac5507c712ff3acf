import t from 'tap';
import { project } from '../../commands/project/aggregate.js';
import type { ProjectEvent } from '../../commands/project/events.js';
import { service } from '../../commands/service/aggregate.js';
import type { ServiceEvent } from '../../commands/service/events.js';
import { reservationOwner } from '../../projections/reservations.js';
import { deciderSpec } from '../helpers/decider-spec.js';
import { sourceServiceData as created } from '../helpers/service-fixture.js';

/** Given events, when retire, then events (or the error code). */
const services = deciderSpec(service);
const projects = deciderSpec(project);

t.test('a service is retired once, and only after its deletion', async (t) => {
  const live: ServiceEvent[] = [{ type: 'ServiceCreated', data: created }];
  services.given().when('retire').thenThrows(t, { code: 'not_found' }, 'no service: nothing to retire');
  services.given(...live).when('retire').thenThrows(t, { code: 'conflict' }, 'a live service is not retired');
  const deleted: ServiceEvent[] = [...live, { type: 'ServiceDeleted', data: { projectId: 'p1' } }];
  services.given(...deleted).when('retire').then(t, [{ type: 'ServiceRetired', data: { projectId: 'p1' } }]);
  const moved: ServiceEvent[] = [
    ...live,
    { type: 'ServiceTransferred', data: { fromProjectId: 'p1', toProjectId: 'p2' } },
    { type: 'ServiceDeleted', data: { projectId: 'p2' } },
  ];
  services.given(...moved).when('retire').then(t, [{ type: 'ServiceRetired', data: { projectId: 'p2' } }], 'retired from the project it was in');
  const retired = services.given(...deleted, { type: 'ServiceRetired', data: { projectId: 'p1' } });
  t.equal(retired.state.retired, true);
  retired.when('retire').then(t, [], 'deciding it twice says nothing');
});

t.test('a project is retired once, and only after its deletion', async (t) => {
  const live: ProjectEvent[] = [{ type: 'ProjectCreated', data: { name: 'Shop', slug: 'shop', description: '' } }];
  projects.given().when('retire').thenThrows(t, { code: 'not_found' });
  projects.given(...live).when('retire').thenThrows(t, { code: 'conflict' });
  const deleted: ProjectEvent[] = [...live, { type: 'ProjectDeleted', data: { slug: 'shop' } }];
  projects.given(...deleted).when('retire').then(t, [{ type: 'ProjectRetired', data: { slug: 'shop' } }]);
  const retired = projects.given(...deleted, { type: 'ProjectRetired', data: { slug: 'shop' } });
  t.equal(retired.state.retired, true);
  retired.when('retire').then(t, [], 'deciding it twice says nothing');
});

t.test('a reservation belongs to the aggregate before the slash', async (t) => {
  t.same(reservationOwner('project-slug', 'p1'), { type: 'project', id: 'p1' });
  t.same(reservationOwner('service-name', 's1'), { type: 'service', id: 's1' });
  t.same(reservationOwner('host-port', 's1'), { type: 'service', id: 's1' });
  t.same(reservationOwner('hostname', 's1/d1'), { type: 'service', id: 's1' }, 'a custom domain: its service');
});
