import t from 'tap';
import { project } from '../../commands/project/aggregate.js';
import type { ProjectEvent } from '../../commands/project/events.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(project);
const created: ProjectEvent = { type: 'ProjectCreated', data: { name: 'Shop', slug: 'shop', description: 'd' } };

t.test('create only once', async (t) => {
  spec.given().when('create', { name: 'Shop', slug: 'shop', description: '' }).then(t, [{ type: 'ProjectCreated', data: { name: 'Shop', slug: 'shop', description: '' } }]);
  spec.given(created).when('create', { name: 'x', slug: 'x', description: '' }).thenThrows(t, { code: 'conflict' });
});

t.test('update keeps what is not given and skips no-ops', async (t) => {
  spec.given(created).when('update', { description: 'new' }).then(t, [{ type: 'ProjectUpdated', data: { name: 'Shop', description: 'new' } }]);
  spec.given(created).when('update', { name: 'Shop' }).then(t, []);
  spec.given().when('update', { name: 'x' }).thenThrows(t, { code: 'not_found' });
});

t.test('services attach and detach; delete needs none left', async (t) => {
  const withService = spec.given(created).when('attach', 's1').given();
  t.same(withService.state.serviceIds, ['s1']);
  withService.when('attach', 's1').then(t, [], 'attaching twice is a no-op');
  withService.when('delete').thenThrows(t, { code: 'conflict' });
  const empty = withService.when('detach', 's1').given();
  empty.when('detach', 's1').then(t, []);
  empty.when('delete').then(t, [{ type: 'ProjectDeleted', data: { slug: 'shop' } }]);
  const gone = empty.when('delete').given();
  t.equal(gone.state.status, 'deleted');
  gone.when('attach', 's2').thenThrows(t, { code: 'not_found' }, 'no service joins a deleted project');
  gone.when('delete').thenThrows(t, { code: 'not_found' });
});
