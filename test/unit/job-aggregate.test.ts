import t from 'tap';
import { job } from '../../commands/job/aggregate.js';
import type { JobEvent } from '../../commands/job/events.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(job);
const created: Extract<JobEvent, { type: 'JobCreated' }>['data'] = {
  serviceId: 's', projectId: 'p', name: 'nightly', schedule: '0 3 * * *', timezone: 'UTC', command: 'echo hi', timeoutSeconds: 3600, concurrency: 'forbid', enabled: true,
};
const wasCreated: JobEvent = { type: 'JobCreated', data: created };

t.test('a job is created once, with a schedule that is ever due in a zone that exists', async (t) => {
  spec.given().when('create', created).then(t, [wasCreated]);
  spec.given(wasCreated).when('create', created).thenThrows(t, { code: 'conflict' });
  spec.given().when('create', { ...created, schedule: '61 * * * *' }).thenThrows(t, { code: 'validation_failed', details: [{ path: 'schedule' }] });
  spec.given().when('create', { ...created, schedule: '* * * * * *' }).thenThrows(t, { code: 'validation_failed', details: [{ path: 'schedule' }] }, 'six fields are refused');
  spec.given().when('create', { ...created, schedule: '@reboot' }).thenThrows(t, { code: 'validation_failed', details: [{ path: 'schedule' }] });
  spec.given().when('create', { ...created, schedule: '0 0 30 2 *' }).thenThrows(t, { code: 'validation_failed', message: /never due/ });
  spec.given().when('create', { ...created, timezone: 'Mars/Olympus' }).thenThrows(t, { code: 'validation_failed', details: [{ path: 'timezone' }] });
  spec.given().when('create', { ...created, schedule: '@daily', timezone: 'Europe/Berlin' }).then(t, [{ type: 'JobCreated', data: { ...created, schedule: '@daily', timezone: 'Europe/Berlin' } }]);
});

t.test('an update records what changed, checked like a creation', async (t) => {
  const given = spec.given(wasCreated);
  given.when('update', { schedule: '*/5 * * * *', enabled: true }).then(t, [{ type: 'JobUpdated', data: { changes: { schedule: '*/5 * * * *' } } }], 'only the changed field');
  given.when('update', { name: 'nightly', command: 'echo hi' }).then(t, [], 'nothing changed: nothing recorded');
  given.when('update', { command: ['echo', 'hi'] }).then(t, [{ type: 'JobUpdated', data: { changes: { command: ['echo', 'hi'] } } }]);
  given.when('update', { timezone: 'Nowhere/Else' }).thenThrows(t, { code: 'validation_failed', details: [{ path: 'timezone' }] }, 'the zone is checked with the kept schedule');
  t.same(given.when('update', { concurrency: 'replace' }).state.settings?.concurrency, 'replace');
  spec.given().when('update', { enabled: false }).thenThrows(t, { code: 'not_found' });
});

t.test('deleted by request once; with its service, a no-op once deleted', async (t) => {
  spec.given(wasCreated).when('delete').then(t, [{ type: 'JobDeleted', data: { reason: 'request' } }]);
  const deleted = spec.given(wasCreated, { type: 'JobDeleted', data: { reason: 'request' } });
  deleted.when('delete').thenThrows(t, { code: 'not_found' });
  deleted.when('update', { enabled: false }).thenThrows(t, { code: 'not_found' });
  deleted.when('deleteWithService').then(t, []);
  spec.given(wasCreated).when('deleteWithService').then(t, [{ type: 'JobDeleted', data: { reason: 'service-deleted' } }]);
  spec.given().when('deleteWithService').then(t, [], 'never created: nothing to delete');
});
