import { randomUUID } from 'node:crypto';
import t from 'tap';
import { createProject } from '../helpers/api-suite.js';
import { assertError } from '../helpers/http-errors.js';
import { newEvent } from '../helpers/new-event.js';
import { startTestServer } from '../helpers/test-server.js';

const raw = (type: string, data: Record<string, unknown>) => newEvent(type, data);

t.test('an event a read model cannot apply is parked; the other read models, and later events, go on', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  await createProject(s, 'Before');

  // Written under an older, looser schema: a project without a slug.
  const poisonId = randomUUID();
  const poison = raw('ProjectCreated', { name: 'Loose', description: '' });
  const appended = await s.app.store.append(`project-${poisonId}`, [poison], 'no_stream');
  // Later events of every kind still apply, in the same read model and in the others.
  const after = await createProject(s, 'After');
  t.ok(await s.app.runner.waitFor(appended.position, 10_000), 'the runner moved past the poison event');

  const projects = (await s.call('GET', '/api/projects')).body.projects.map((p: { name: string }) => p.name).sort();
  t.same(projects, ['After', 'Before'], 'the projects read model went on past it');
  t.equal((await s.call('GET', `/api/projects/${after.slug}`)).status, 200);
  const audit = (await s.call('GET', '/api/events?limit=1000')).body.events as { id: string }[];
  t.ok(audit.some((e) => e.id === poison.id), 'the audit read model, which parses nothing, recorded it');

  // Every read model that parses project events parks it; the others (the audit log among them) never held it.
  const parked = (await s.call('GET', '/api/health/parked')).body.parked as { projector: string; eventId: string }[];
  const parkers = parked.map((p) => p.projector).sort();
  t.ok(parkers.includes('projects') && !parkers.includes('audit'), `parked by ${parkers.join(', ')}`);
  t.ok(parked.every((p) => p.eventId === poison.id), 'only the poison event');
  t.match(parked.find((p) => p.projector === 'projects'), { eventId: poison.id, type: 'ProjectCreated', attempts: 3, error: /slug/ });

  const health = (await s.call('GET', '/api/health')).body;
  t.equal(health.ok, false, 'health is not ok while an event is parked');
  t.equal(health.parked, parked.length);
  t.match(health.projectors.find((p: { name: string }) => p.name === 'projects'), { parked: 1, state: 'live', behind: 0 });
  t.ok(
    health.projectors.every((p: { name: string; parked: number; behind: number }) => p.behind === 0 && p.parked === (parkers.includes(p.name) ? 1 : 0)),
    'no read model is behind; each counts what it parked',
  );

  // Retrying while the event is still malformed fails and keeps it parked.
  assertError(t, await s.call('POST', `/api/health/parked/projects/${poison.id}/retry`), 409, 'conflict', 'a retry that fails again');
  t.equal((await s.call('GET', '/api/health/parked')).body.parked.length, parked.length, 'still parked');
  assertError(t, await s.call('POST', `/api/health/parked/projects/${randomUUID()}/retry`), 404, 'not_found', 'an event that is not parked');
  assertError(t, await s.call('POST', `/api/health/parked/projects/${poison.id}/skip`, { key: await readKey(s) }), 403, 'forbidden', 'a read key cannot skip');

  for (const projector of parkers) {
    t.equal((await s.call('POST', `/api/health/parked/${projector}/${poison.id}/skip`)).status, 200, `an operator skips it for good (${projector})`);
  }
  t.same((await s.call('GET', '/api/health/parked')).body.parked, []);
  t.equal((await s.call('GET', '/api/health')).body.parked, 0);
});

t.test('a parked event applies on retry once it can be read', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const id = randomUUID();
  // A project created with a slug that is not a string: unreadable until an operator fixes it (here: a skip
  // of the bad one and a retry of a fixed copy stands in for an upcaster shipped in a new version).
  const bad = raw('ProjectCreated', { name: 'Fixable', description: '', slug: 42 });
  const { position } = await s.app.store.append(`project-${id}`, [bad], 'no_stream');
  await s.app.runner.waitFor(position);
  const parkers = ((await s.call('GET', '/api/health/parked')).body.parked as { projector: string }[]).map((p) => p.projector);
  t.ok(parkers.includes('projects'), 'parked');
  await s.app.db.query(`update proj_parked set data = jsonb_set(data, '{slug}', '"fixable"') where event_id = $1`, [bad.id]);
  for (const projector of parkers) t.equal((await s.call('POST', `/api/health/parked/${projector}/${bad.id}/retry`)).status, 200, `the retry applies it (${projector})`);
  t.same((await s.call('GET', '/api/health/parked')).body.parked, [], 'no longer parked');
  t.equal((await s.call('GET', '/api/projects/fixable')).status, 200, 'and the read model has it');
});

t.test('a write whose read models do not catch up answers 503 with Retry-After, never a wrong 404', async (t) => {
  const s = await startTestServer({ SLIPWAY_SETTLE_TIMEOUT: '0.3' });
  t.teardown(() => s.close());
  await s.app.runner.stop();
  const answer = await s.call('POST', '/api/projects', { body: { name: 'Behind' } });
  assertError(t, answer, 503, 'unavailable', 'the read models are stopped');
  t.equal(answer.headers.get('retry-after'), '1');
  t.match(answer.body.error.message, /recorded/);
  await s.app.runner.start();
  await s.app.runner.caughtUp();
  t.equal((await s.call('GET', '/api/projects/behind')).status, 200, 'the write was kept and shows once they catch up');
});

async function readKey(s: Awaited<ReturnType<typeof startTestServer>>): Promise<string> {
  return (await s.call('POST', '/api/keys', { body: { name: 'reader', access: 'read', projectIds: null } })).body.secret;
}
