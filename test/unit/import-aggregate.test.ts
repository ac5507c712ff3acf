import t from 'tap';
import { dataImport } from '../../commands/import/aggregate.js';
import type { ImportEvent } from '../../commands/import/events.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(dataImport);
const request = { serviceId: 's', projectId: 'p', engine: 'postgres', source: 'postgres-url' as const, sourceLabel: 'postgres://app@db.example.com/app', sourceUrl: 'enc:url' };
const requested: ImportEvent = { type: 'ImportRequested', data: request };
const started: ImportEvent = { type: 'ImportStarted', data: {} };

t.test('an import is requested once', async (t) => {
  spec.given().when('request', request).then(t, [requested]);
  spec.given(requested).when('request', request).thenThrows(t, { code: 'conflict' });
});

t.test('it starts once, from requested', async (t) => {
  spec.given().when('start').then(t, [], 'nothing requested: nothing to start');
  spec.given(requested).when('start').then(t, [started]);
  spec.given(requested, started).when('start').then(t, [], 'started once');
});

t.test('one outcome: success only while running, failure while unfinished', async (t) => {
  spec.given(requested).when('succeed').then(t, [], 'not before it started');
  spec.given(requested, started).when('succeed').then(t, [{ type: 'ImportSucceeded', data: {} }]);
  spec.given(requested).when('fail', 'no route').then(t, [{ type: 'ImportFailed', data: { error: 'no route' } }], 'a requested one can fail before it starts');
  const done = spec.given(requested, started, { type: 'ImportSucceeded', data: {} });
  t.equal(done.state.status, 'succeeded');
  done.when('fail', 'late').then(t, [], 'a succeeded import does not fail afterwards');
  done.when('succeed').then(t, [], 'nor succeeds twice');
  const failed = spec.given(requested, started).when('fail', 'x').given();
  t.equal(failed.state.status, 'failed');
  failed.when('succeed').then(t, [], 'a late success after a failure is dropped');
  failed.when('start').then(t, [], 'a failed import is not started again');
});

t.test('a failure reason is stored printable', async (t) => {
  spec.given(requested, started).when('fail', 'pg said \u0000\u001b[2Jno').then(t, [{ type: 'ImportFailed', data: { error: 'pg said no' } }]);
});
