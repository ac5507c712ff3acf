import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { testWebService } from '../helpers/http-resources.js';
import { assertError } from '../helpers/http-errors.js';
import { readSse, type SseReader } from '../helpers/sse.js';
import { startTestServer } from '../helpers/test-server.js';
import { waitFor as waitForValue } from '../helpers/net.js';

const s = await startTestServer();
const waitFor = (what: string, ok: () => boolean) => waitForValue(what, async () => ok(), Boolean);
t.teardown(() => s.close());

const feed = async (key: string | null, query = '', headers: Record<string, string> = {}) => {
  const reader = await readSse(`${s.url}/api/changes${query}`, key, headers);
  t.teardown(() => reader.close());
  await waitFor('the feed is ready', () => reader.events.some((e) => e.event === 'ready'));
  return reader;
};
const changes = (r: SseReader) => r.events.filter((e) => e.event === 'change').map((e) => e.data);
const rename = (projectId: string, name: string, key?: string) => s.call('PATCH', `/api/projects/${projectId}`, { body: { name }, ...(key ? { key } : {}) });

t.test('a change reaches the feed once the read models show it, with its position as the event id', async (t) => {
  const all = await feed(s.key);
  const ready = all.events[0]!;
  t.equal(ready.event, 'ready', 'ready comes first');
  t.equal(ready.id, ready.data.position, 'its id is where the feed starts');
  const project = await createProject(s, 'Feed');
  await waitFor('the change', () => changes(all).some((c) => c.type === 'ProjectCreated' && c.projectId === project.id));
  const told = all.events.find((e) => e.event === 'change' && e.data.projectId === project.id)!;
  t.equal(told.id, told.data.position, 'the event id is the position');
  t.ok(told.data.position > ready.data.position, 'after where it started');
  t.match(told.data, { streamId: `project-${project.id}`, serviceId: null, deploymentId: null, actor: /^key:/ });
  t.notOk('data' in told.data, "the event's data is not told");
  const listed = (await s.call('GET', `/api/projects/${project.id}`)).body.project;
  t.equal(listed.name, 'Feed', 'a GET made on hearing it shows it');
});

t.test('a service and a deployment are named on the changes that concern them', async (t) => {
  const project = await createProject(s, 'Named');
  const all = await feed(s.key, `?project=${project.id}`);
  const web = await createService(s, project.id, testWebService('web'));
  const variable = await s.call('POST', `/api/services/${web.id}/env`, { body: { key: 'A', value: '1' } });
  t.equal(variable.status, 200);
  await waitFor('the variable', () => changes(all).some((c) => c.serviceId === web.id && c.type !== 'ServiceCreated'));
  t.ok(changes(all).every((c) => c.projectId === project.id), 'only the project asked for');
  t.ok(changes(all).some((c) => c.type === 'ServiceCreated' && c.serviceId === web.id));
});

t.test('a scoped key hears only its projects; the installation is heard by all-project keys only', async (t) => {
  const mine = await createProject(s, 'Mine');
  const theirs = await createProject(s, 'Theirs');
  const scoped = await createKey(s, 'read', [mine.id]);
  const narrow = await feed(scoped.secret);
  const wide = await feed(s.key);
  await rename(theirs.id, 'Theirs, renamed');
  await createKey(s, 'read', null);
  await rename(mine.id, 'Mine, renamed');
  await waitFor('the scoped key hears its project', () => changes(narrow).some((c) => c.projectId === mine.id));
  await waitFor('the wide key hears all three', () => changes(wide).some((c) => c.projectId === mine.id));
  t.same(new Set(changes(narrow).map((c) => c.projectId)), new Set([mine.id]), 'nothing of another project, nothing of the installation');
  t.ok(changes(wide).some((c) => c.projectId === theirs.id));
  t.ok(changes(wide).some((c) => c.projectId === null && c.streamId.startsWith('apikey-')), "the installation's own");
  assertError(t, await s.call('GET', `/api/changes?project=${theirs.id}`, { key: scoped.secret }), 404, 'not_found', "another project's feed");
});

t.test('a reconnection with Last-Event-ID first gets what it missed, in order', async (t) => {
  const project = await createProject(s, 'Resume');
  const first = await feed(s.key, `?project=${project.id}`);
  await rename(project.id, 'Resume 1');
  await waitFor('the first change', () => changes(first).length === 1);
  const lastId = first.events.at(-1)!.id!;
  first.close();
  await rename(project.id, 'Resume 2');
  await rename(project.id, 'Resume 3');
  const again = await feed(s.key, `?project=${project.id}`, { 'last-event-id': lastId });
  await waitFor('the two it missed', () => changes(again).length === 2);
  t.equal(again.events[0]!.data.position, lastId, 'it goes on from where it was');
  t.ok(changes(again)[0].position > lastId && changes(again)[0].position < changes(again)[1].position, 'in log order, after the last one it had');
  await rename(project.id, 'Resume 4');
  await waitFor('then the live ones', () => changes(again).length === 3);
  const byQuery = await feed(s.key, `?project=${project.id}&after=${lastId}`);
  await waitFor('after= does the same', () => changes(byQuery).length === 3);
});

t.test('bad input is refused before the stream opens', async (t) => {
  assertError(t, await s.call('GET', '/api/changes?after=yesterday'), 400, 'validation_failed', 'a position that is none');
  assertError(t, await s.call('GET', '/api/changes', { headers: { 'last-event-id': '../../etc' } }), 400, 'validation_failed', 'a Last-Event-ID that is none');
  assertError(t, await s.call('GET', '/api/changes?project=00000000-0000-4000-8000-000000000000'), 404, 'not_found', 'an unknown project');
  assertError(t, await s.call('GET', '/api/changes?project=nope'), 400, 'validation_failed', 'a project id that is none');
  assertError(t, await s.call('GET', '/api/changes', { key: null }), 401, 'unauthorized', 'no key');
});

t.test('a revoked key hears no more: the stream ends at the next change', async (t) => {
  const key = await createKey(s, 'read', null);
  const reader = await feed(key.secret);
  t.equal((await s.call('DELETE', `/api/keys/${key.key.id}`)).status, 200);
  await createProject(s, 'After the revocation');
  await reader.ended;
  t.equal(reader.events.at(-1)!.event, 'end', 'it says why it ends');
  t.notOk(changes(reader).some((c) => c.type === 'ProjectCreated'), 'the change made after the revocation is not told');
});

t.test("a session's feed does not keep it alive, and ends with it", async (t) => {
  const signedIn = await s.call('POST', '/api/sessions', { key: null, body: { key: s.key } });
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
  const reader = await feed(null, '', { cookie });
  const seen = async () => (await s.app.db.query<{ t: string }>('select last_seen_at::text as t from http_sessions order by created_at desc limit 1')).rows[0]!.t;
  // Seen long ago, yet still within the idle timeout (60 min): telling changes must not make it seen now.
  await s.app.db.query("update http_sessions set last_seen_at = now() - interval '30 minutes'");
  const before = await seen();
  await createProject(s, 'While the tab is open');
  await waitFor('told through the cookie', () => changes(reader).some((c) => c.type === 'ProjectCreated'));
  t.equal(await seen(), before, 'the session is not counted as used');
  await s.app.db.query("update http_sessions set last_seen_at = now() - interval '2 hours'");
  await createProject(s, 'After the session ended');
  await reader.ended;
  t.equal(reader.events.at(-1)!.event, 'end');
});

t.test('a key holds at most 20 feeds open; closing one makes room', async (t) => {
  const key = await createKey(s, 'read', null);
  const open = [];
  for (let i = 0; i < 20; i++) open.push(await feed(key.secret));
  assertError(t, await s.call('GET', '/api/changes', { key: key.secret }), 429, 'rate_limited', 'a 21st');
  const other = await readSse(`${s.url}/api/changes`, s.key);
  t.equal(other.status, 200, "another key's count is its own");
  other.close();
  open[0]!.close();
  const again = await waitForValue('room for one more', async () => (await readSse(`${s.url}/api/changes`, key.secret)), (r) => {
    if (r.status !== 200) r.close();
    return r.status === 200;
  });
  again.close();
  for (const r of open) r.close();
});
