import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { cliArgs, root } from '../helpers/cli-process.js';
import { assertError } from '../helpers/http-errors.js';
import { createKey, createProject } from '../helpers/http-resources.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const s: TestServer = await startTestServer();
t.teardown(() => s.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const withId = (id: string) => ({ headers: { 'x-request-id': id } });

interface AuditEvent {
  id: string;
  streamId: string;
  type: string;
  actor: string;
  correlationId: string;
  position: string;
}

/** What the log itself holds for one correlation id, in order. */
async function loggedIds(correlationId: string): Promise<string[]> {
  const { rows } = await s.app.db.query<{ id: string }>(
    "select event_id::text as id from es_events where metadata->>'correlationId' = $1 order by transaction_id, global_position",
    [correlationId],
  );
  return rows.map((r) => r.id);
}

t.test('every answer carries the request id: the client’s, or a new one', async (t) => {
  const given = 'client-req-42';
  for (const [label, r] of [
    ['200', await s.call('GET', '/api/projects', withId(given))],
    ['404', await s.call('GET', '/api/projects/nope', withId(given))],
    ['unknown endpoint', await s.call('GET', '/api/nothing-here', withId(given))],
    ['401', await s.call('GET', '/api/projects', { key: null, ...withId(given) })],
    ['400', await s.call('POST', '/api/projects', { body: { name: '' }, ...withId(given) })],
    ['invalid JSON', await s.call('POST', '/api/projects', { raw: '{', ...withId(given) })],
    ['healthz', await s.call('GET', '/healthz', withId(given))],
  ] as const) {
    t.equal(r.headers.get('x-request-id'), given, `${label}: echoed`);
  }
  assertError(t, await s.call('GET', '/api/projects', { key: null, ...withId(given) }), 401, 'unauthorized', 'the 401 is still the error body');

  const a = await s.call('GET', '/api/projects');
  const b = await s.call('GET', '/api/projects', { key: null });
  t.match(a.headers.get('x-request-id'), UUID, 'generated when none is sent');
  t.match(b.headers.get('x-request-id'), UUID, 'generated on a 401 too');
  t.not(a.headers.get('x-request-id'), b.headers.get('x-request-id'), 'one per request');

  for (const [label, bad] of [
    ['a space', 'two words'],
    ['201 characters', 'r'.repeat(201)],
    ['non-ASCII', 'réq'],
  ] as const) {
    const r = await s.call('GET', '/api/projects', withId(bad));
    t.match(r.headers.get('x-request-id'), UUID, `${label}: replaced by a new id`);
  }
  t.equal((await s.call('GET', '/api/projects', withId('r'.repeat(200)))).headers.get('x-request-id'), 'r'.repeat(200), '200 characters are kept');
});

t.test('the request id is the correlation id of every event the request causes', async (t) => {
  const p = await createProject(s, 'Correlated');
  const requestId = 'create-service-7f3a';
  const created = await s.call('POST', `/api/projects/${p.id}/services`, {
    body: { name: 'web', repoFullName: 'acme/web', branch: 'main', env: [{ key: 'A', value: '1' }] },
    ...withId(requestId),
  });
  t.equal(created.status, 200);
  const serviceId = created.body.service.id as string;

  const story = await s.call('GET', `/api/events?correlationId=${requestId}&limit=1000`);
  t.equal(story.status, 200);
  const events = story.body.events as AuditEvent[];
  t.same(events.map((e) => e.id), await loggedIds(requestId), 'exactly the events the log holds for the request');
  t.ok(events.every((e) => e.correlationId === requestId), 'all carry the request id');
  const types = events.map((e) => `${e.streamId.split('-')[0]}:${e.type}`);
  t.ok(types.includes('reservation:Reserved'), 'the reservations');
  t.ok(types.includes('project:ProjectServiceAttached'), 'the project’s event');
  t.ok(types.includes('service:ServiceCreated'), 'the service’s event');
  t.ok(events.length >= 4, `${events.length} events`);

  // Paging and the stream filter work together with it.
  const pages: AuditEvent[] = [];
  let after = '';
  for (;;) {
    const page = await s.call('GET', `/api/events?correlationId=${requestId}&limit=2&after=${after}`);
    pages.push(...page.body.events);
    if (!page.body.next) break;
    after = page.body.next;
  }
  t.same(pages.map((e) => e.id), events.map((e) => e.id), 'paged in twos: the same story');
  const serviceOnly = await s.call('GET', `/api/events?correlationId=${requestId}&stream=service-${serviceId}`);
  t.same(serviceOnly.body.events.map((e: AuditEvent) => e.type), ['ServiceCreated', 'EnvVarSet'], 'with a stream: that stream’s part');

  const inProject = await s.call('GET', `/api/projects/${p.id}/events?correlationId=${requestId}`);
  t.equal(inProject.status, 200);
  const projectTypes = inProject.body.events.map((e: AuditEvent) => e.type);
  t.ok(projectTypes.includes('ServiceCreated') && projectTypes.includes('ProjectServiceAttached'), 'the project view has its part');
  t.ok(inProject.body.events.every((e: AuditEvent) => e.correlationId === requestId));

  t.same((await s.call('GET', '/api/events?correlationId=no-such-request')).body.events, [], 'an unknown id: nothing');
  const actor = events.find((e) => e.type === 'ServiceCreated')!.actor;
  const byTypeAndActor = (await s.call('GET', `/api/events?type=EnvVarSet&actor=${encodeURIComponent(actor)}&limit=1000`)).body.events as AuditEvent[];
  t.ok(byTypeAndActor.length > 0 && byTypeAndActor.every((e) => e.type === 'EnvVarSet' && e.actor === actor), 'by type and actor');
  t.same((await s.call('GET', '/api/events?actor=key:nobody')).body.events, [], 'an actor that did nothing: nothing');
  assertError(t, await s.call('GET', `/api/events?correlationId=${'c'.repeat(201)}`), 400, 'validation_failed', 'too long');
});

t.test('a generated request id correlates too', async (t) => {
  const r = await s.call('POST', '/api/projects', { body: { name: 'Generated', description: '' } });
  const id = r.headers.get('x-request-id')!;
  t.match(id, UUID);
  const story = (await s.call('GET', `/api/events?correlationId=${id}`)).body.events as AuditEvent[];
  t.same(story.map((e) => e.type), ['Reserved', 'ProjectCreated'], 'the slug reservation and the project');
  t.equal(story.find((e) => e.type === 'ProjectCreated')?.streamId, `project-${r.body.project.id}`);
});

t.test('slipway audit --correlation prints one request’s events', async (t) => {
  const requestId = 'cli-correlation-1';
  const r = await s.call('POST', '/api/projects', { body: { name: 'From the CLI', description: '' }, ...withId(requestId) });
  t.equal(r.status, 200);
  const { stdout } = await promisify(execFile)(process.execPath, [...cliArgs, 'audit', '--data-dir', s.dataDir, '--correlation', requestId], {
    cwd: root,
    env: process.env,
  });
  const printed = stdout.trim().split('\n').map((line) => JSON.parse(line) as AuditEvent);
  t.same(printed.map((e) => e.id), await loggedIds(requestId), 'exactly that request’s events');
});

t.test('a project-scoped key cannot make its events part of another key\'s request', async (t) => {
  const p = await createProject(s, 'Shared Ids');
  const scoped = await createKey(s, 'write', [p.id]);
  const taken = 'admin-change-1';
  t.equal((await s.call('POST', `/api/projects/${p.id}/services`, { body: { name: 'api', repoFullName: 'acme/api', branch: 'main' }, ...withId(taken) })).status, 200);
  const before = (await s.call('GET', `/api/events?correlationId=${taken}&limit=1000`)).body.events as AuditEvent[];
  const serviceId = before.find((e) => e.type === 'ServiceCreated')!.streamId.replace(/^service-/, '');

  const hijack = await s.call('POST', `/api/services/${serviceId}/env`, { key: scoped.secret, body: { key: 'X', value: '1' }, ...withId(taken) });
  t.equal(hijack.status, 200);
  t.equal(hijack.headers.get('x-request-id'), taken, 'the answer still carries the id it sent');
  const after = (await s.call('GET', `/api/events?correlationId=${taken}&limit=1000`)).body.events as AuditEvent[];
  t.same(after.map((e) => e.id), before.map((e) => e.id), 'the other key\'s story gained nothing');
  const envEvent = (await s.call('GET', `/api/events?stream=service-${serviceId}&limit=100`)).body.events.find((e: AuditEvent) => e.type === 'EnvVarSet');
  t.match(envEvent.correlationId, UUID, 'its events got a correlation id of their own');

  const own = 'scoped-own-1';
  t.equal((await s.call('POST', `/api/services/${serviceId}/env`, { key: scoped.secret, body: { key: 'Y', value: '1' }, ...withId(own) })).status, 200);
  t.equal((await s.call('POST', `/api/services/${serviceId}/env`, { key: scoped.secret, body: { key: 'Z', value: '1' }, ...withId(own) })).status, 200);
  const mine = (await s.call('GET', `/api/events?correlationId=${own}&limit=100`)).body.events as AuditEvent[];
  t.same(mine.map((e) => e.type), ['EnvVarSet', 'EnvVarSet'], 'an id only it has used stays its correlation id');
});
