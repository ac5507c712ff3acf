import t from 'tap';
import { decideAttach, decideCreate, decideDelete, decideDetach, decideUpdate, project, type ProjectState } from '../../commands/project/aggregate.js';
import type { ProjectEvent } from '../../commands/project/events.js';

const fold = (events: ProjectEvent[]): ProjectState => events.reduce(project.evolve, project.initial);
const created = fold([{ type: 'ProjectCreated', data: { name: 'Shop', slug: 'shop', description: 'd' } }]);

t.test('create only once', async (t) => {
  t.same(decideCreate(project.initial, { name: 'Shop', slug: 'shop', description: '' }), [
    { type: 'ProjectCreated', data: { name: 'Shop', slug: 'shop', description: '' } },
  ]);
  t.throws(() => decideCreate(created, { name: 'x', slug: 'x', description: '' }), { code: 'conflict' });
});

t.test('update keeps what is not given and skips no-ops', async (t) => {
  t.same(decideUpdate(created, { description: 'new' }), [{ type: 'ProjectUpdated', data: { name: 'Shop', description: 'new' } }]);
  t.same(decideUpdate(created, { name: 'Shop' }), []);
  t.throws(() => decideUpdate(project.initial, { name: 'x' }), { code: 'not_found' });
});

t.test('services attach and detach; delete needs none left', async (t) => {
  const withService = fold([
    { type: 'ProjectCreated', data: { name: 'Shop', slug: 'shop', description: 'd' } },
    ...decideAttach(created, 's1'),
  ]);
  t.same(withService.serviceIds, ['s1']);
  t.same(decideAttach(withService, 's1'), [], 'attaching twice is a no-op');
  t.throws(() => decideDelete(withService), { code: 'conflict' });
  const empty = decideDetach(withService, 's1').reduce(project.evolve, withService);
  t.same(decideDetach(empty, 's1'), []);
  t.same(decideDelete(empty), [{ type: 'ProjectDeleted', data: { slug: 'shop' } }]);
  const gone = decideDelete(empty).reduce(project.evolve, empty);
  t.equal(gone.status, 'deleted');
  t.throws(() => decideAttach(gone, 's2'), { code: 'not_found' }, 'no service joins a deleted project');
  t.throws(() => decideDelete(gone), { code: 'not_found' });
});
