import t from 'tap';
import { matchEntries, paletteEntries } from '../../src/dashboard/palette-entries.js';
import type { Project } from '../../src/dashboard/projects-store.js';

const service = (id: string, name: string) => ({ id, name }) as Project['services'][number];
const projects = [
  { id: 'p1', name: 'Shop', services: [service('s1', 'web'), service('s2', 'db')] },
  { id: 'p2', name: 'Blog', services: [service('s3', 'web')] },
] as unknown as Project[];

t.test('pages for everyone, actions for a write key only', async (t) => {
  const read = paletteEntries(projects, false);
  t.ok(read.some((e) => e.run && 'to' in e.run && e.run.to === '/services/s1'), 'a service page');
  t.ok(read.some((e) => 'to' in e.run && e.run.to === '/projects/p2'), 'a project page');
  t.notOk(read.some((e) => e.kind === 'action'), 'a read key is offered no action');
  const write = paletteEntries(projects, true);
  t.same(
    write.filter((e) => e.kind === 'action' && 'serviceId' in e.run && e.run.serviceId === 's1').map((e) => e.label),
    ['Deploy web', 'Restart web', 'Roll back web'],
  );
});

t.test('what was typed narrows and ranks; every word must match', async (t) => {
  const all = paletteEntries(projects, true);
  t.same(matchEntries(all, 'deploy web').map((e) => `${e.label} · ${e.hint}`), ['Deploy web · Shop', 'Deploy web · Blog']);
  t.same(matchEntries(all, 'deploy web blog').map((e) => e.id), ['deploy:s3'], 'the project narrows it');
  t.equal(matchEntries(all, 'web')[0]!.label, 'web', 'a label that starts with the query first');
  t.same(matchEntries(all, 'nothing like this'), []);
  t.equal(matchEntries(all, '', 5).length, 5, 'nothing typed: the first entries, up to the limit');
});

t.test("a deployment's id opens its page", async (t) => {
  const id = '0f1e2d3c-4b5a-4678-9abc-def012345678';
  t.same(matchEntries([], ` ${id.toUpperCase()} `).map((e) => e.run), [{ to: `/deployments/${id}` }]);
});
