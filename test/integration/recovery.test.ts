import { randomUUID } from 'node:crypto';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { waitFor } from '../helpers/net.js';
import { newEvent } from '../helpers/new-event.js';
import { startTestServer } from '../helpers/test-server.js';

const event = (type: string, data: Record<string, unknown>) => newEvent(type, data);

t.test('commands cut short by a crash are completed without being run again', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const p = await createProject(s, 'Crashy');

  // A service creation that attached its id to the project, then died before creating the service.
  await s.app.store.append(`project-${p.id}`, [event('ProjectServiceAttached', { serviceId: randomUUID() })], 'any');

  // A service deletion that recorded ServiceDeleted, then died before releasing its hostname and detaching.
  const svc = await createService(s, p.id, { name: 'half', repoFullName: 'acme/half', branch: 'main' });
  t.equal((await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'half.example.com' } })).status, 200);
  await s.app.store.append(`service-${svc.id}`, [event('ServiceDeleted', { projectId: p.id })], 'any');

  // The retirement process manager completes it: no second DELETE.
  await waitFor('the half-deleted service to be retired', () => s.app.store.readStream(`service-${svc.id}`), (events) =>
    events.some((e) => e.type === 'ServiceRetired'),
  );
  const q = await createProject(s, 'After');
  const other = await createService(s, q.id, { name: 'half', repoFullName: 'acme/half', branch: 'main' });
  const reused = await s.call('POST', `/api/services/${other.id}/domains`, { body: { hostname: 'half.example.com' } });
  t.equal(reused.status, 200, 'what the half-deleted service held was released');

  const deleted = await s.call('DELETE', `/api/projects/${p.id}`);
  t.equal(deleted.status, 200, 'the project still deletes (the dangling id is detached, the retired service left it)');
  t.equal((await s.call('GET', `/api/projects/${p.slug}`)).status, 404);
  t.equal((await createProject(s, 'Crashy')).slug, p.slug, 'and its slug is free at once');
});
