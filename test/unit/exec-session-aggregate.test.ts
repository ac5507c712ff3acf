import t from 'tap';
import { execSession } from '../../commands/exec-session/aggregate.js';
import type { ExecSessionEvent } from '../../commands/exec-session/events.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(execSession);
const opened = { serviceId: 's', projectId: 'p', containerName: 'slipway-web-d1', command: ['sh', '-c', 'ls /app'], tty: false };
const started: ExecSessionEvent = { type: 'ExecSessionStarted', data: opened };

t.test('a session starts once', async (t) => {
  spec.given().when('start', opened).then(t, [started]);
  spec.given(started).when('start', opened).thenThrows(t, { code: 'conflict' });
});

t.test('it ends once, and only once started; the duration is whole milliseconds', async (t) => {
  spec.given().when('end', { durationMs: 5, exitCode: 0, reason: 'exited' }).then(t, [], 'nothing started: nothing to end');
  spec.given(started).when('end', { durationMs: 1234.6, exitCode: 3, reason: 'exited' }).then(t, [{ type: 'ExecSessionEnded', data: { durationMs: 1235, exitCode: 3, reason: 'exited' } }]);
  const ended = spec.given(started).when('end', { durationMs: 10, exitCode: null, reason: 'closed' }).given();
  t.equal(ended.state.status, 'ended');
  ended.when('end', { durationMs: 20, exitCode: 0, reason: 'exited' }).then(t, [], 'a late second end is dropped');
});
