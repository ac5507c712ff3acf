import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { testWebService } from '../helpers/http-resources.js';
import { startTestServer } from '../helpers/test-server.js';

const s = await startTestServer();
t.teardown(() => s.close());

interface Event {
  streamId: string;
  type: string;
  actor: string;
  actorName: string | null;
}
const read = async (path: string, key?: string): Promise<Event[]> => {
  const r = await s.call('GET', path, key === undefined ? {} : { key });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.events as Event[];
};

t.test('actorName: the key’s name for a key’s events, revoked or not; null for any other actor', async (t) => {
  const shop = await createProject(s, 'Shop');
  const other = await createProject(s, 'Other');
  const created = await s.call('POST', '/api/keys', { body: { name: 'ci', access: 'write', projectIds: [shop.id] } });
  const ci = created.body as { key: { id: string }; secret: string };
  const web = await createService(s, shop.id, testWebService('web'));
  const setByCi = await s.call('POST', `/api/services/${web.id}/env`, { key: ci.secret, body: { key: 'DATABASE_URL', value: 'postgres://x' } });
  t.equal(setByCi.status, 200, 'the scoped key sets a variable');
  await createService(s, other.id, testWebService('elsewhere'));
  const bootstrap = (await s.call('GET', '/api/keys')).body.keys.find((k: { id: string; name: string }) => k.id !== ci.key.id) as { id: string; name: string };

  const all = await read('/api/events?order=desc&limit=1000');
  const byCi = all.find((e) => e.type === 'EnvVarSet');
  t.match(byCi, { actor: `key:${ci.key.id}`, actorName: 'ci' }, 'the scoped key’s event names it');
  t.match(all.find((e) => e.type === 'ProjectCreated'), { actor: `key:${bootstrap.id}`, actorName: bootstrap.name }, 'the bootstrap key’s too');
  t.same(all.filter((e) => !e.actor.startsWith('key:') && e.actorName !== null), [], 'no name for the CLI or Slipway itself');
  t.same(all.filter((e) => e.actor.startsWith('key:') && e.actorName === null), [], 'every key’s event is named');

  await s.call('DELETE', `/api/keys/${ci.key.id}`);
  const afterRevoking = await read(`/api/projects/${shop.id}/events?order=desc&type=EnvVarSet`);
  t.equal(afterRevoking[0]?.actorName, 'ci', 'a revoked key keeps its name in the log');
});

t.test('a project-scoped key sees its project’s events, names and all, and no other project’s', async (t) => {
  const mine = await createProject(s, 'Mine');
  const theirs = await createProject(s, 'Theirs');
  const reader = (await s.call('POST', '/api/keys', { body: { name: 'auditor', access: 'read', projectIds: [mine.id] } })).body as { secret: string };
  const api = await createService(s, mine.id, testWebService('api'));
  const hidden = await createService(s, theirs.id, testWebService('hidden'));

  const events = await read(`/api/projects/${mine.id}/events?order=desc&limit=1000`, reader.secret);
  const streams = new Set(events.map((e) => e.streamId));
  t.ok(streams.has(`project-${mine.id}`) && streams.has(`service-${api.id}`), 'its project and service');
  t.notOk(streams.has(`project-${theirs.id}`) || streams.has(`service-${hidden.id}`), 'nothing of the other project');
  t.ok(events.every((e) => e.actorName !== null), 'each names the key that made it');
  t.equal((await s.call('GET', `/api/projects/${theirs.id}/events`, { key: reader.secret })).status, 404, 'the other project is not there for it');
  t.equal((await s.call('GET', '/api/events', { key: reader.secret })).status, 403, 'nor the whole history');
});
