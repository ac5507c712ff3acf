import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { assertError, detailPaths } from '../helpers/http-errors.js';
import { testWebService } from '../helpers/http-resources.js';
import { startTestServer } from '../helpers/test-server.js';

const s = await startTestServer();
t.teardown(() => s.close());

type Page = { events: { position: string; type: string }[]; next: string | null };
const read = async (path: string): Promise<Page> => {
  const r = await s.call('GET', path);
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Page;
};

t.test('order=desc: newest first, `after` then means older than, `next` the last position listed', async (t) => {
  const p = await createProject(s, 'Newest');
  const web = await createService(s, p.id, testWebService('web'));
  for (const key of ['A', 'B', 'C']) await s.call('POST', `/api/services/${web.id}/env`, { body: { key, value: 'x' } });
  const base = `/api/projects/${p.id}/events`;

  const oldestFirst = (await read(`${base}?limit=1000`)).events;
  t.same(oldestFirst.map((e) => e.type), ['ProjectCreated', 'ProjectServiceAttached', 'ServiceCreated', 'EnvVarSet', 'EnvVarSet', 'EnvVarSet'], 'the default is unchanged: oldest first');

  const first = await read(`${base}?order=desc&limit=4`);
  t.same(first.events.map((e) => e.position), oldestFirst.map((e) => e.position).reverse().slice(0, 4), 'the newest four, newest first');
  t.equal(first.next, first.events[3]!.position, 'next is the last position listed');
  const second = await read(`${base}?order=desc&limit=4&after=${first.next}`);
  t.same(second.events.map((e) => e.type), ['ProjectServiceAttached', 'ProjectCreated'], 'after means older than');
  t.equal(second.next, null, 'a short page is the end');

  const all = await read(`/api/events?order=desc&limit=2`);
  t.equal(all.events[0]!.position, oldestFirst.at(-1)!.position, 'the whole history pages newest first too');
  t.ok(all.events[0]!.position > all.events[1]!.position);

  const narrowed = await read(`${base}?order=desc&excludeType=EnvVarSet`);
  t.same(narrowed.events.map((e) => e.type), ['ServiceCreated', 'ProjectServiceAttached', 'ProjectCreated'], 'excludeType leaves one type out');
  const fewer = await read(`${base}?order=desc&excludeType=EnvVarSet,ProjectServiceAttached`);
  t.same(fewer.events.map((e) => e.type), ['ServiceCreated', 'ProjectCreated'], 'or several, separated by commas');

  const bad = await s.call('GET', `${base}?order=sideways`);
  assertError(t, bad, 400, 'validation_failed', 'an unknown order');
  t.same(detailPaths(bad), ['order']);
});
