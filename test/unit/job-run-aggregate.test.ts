import t from 'tap';
import { jobRun } from '../../commands/job-run/aggregate.js';
import type { JobRunEvent, JobRunRequest, JobRunSkip } from '../../commands/job-run/events.js';
import { argvOf } from '../../commands/shared/command-line.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(jobRun);
const request: JobRunRequest = {
  serviceId: 's', projectId: 'p', jobId: 'j', jobName: 'nightly', command: ['sh', '-c', 'echo hi'], timeoutSeconds: 60, trigger: 'schedule',
  dueAt: '2026-11-29T03:00:00.000Z', lateMs: 120,
};
const skip: JobRunSkip = { serviceId: 's', projectId: 'p', jobId: 'j', jobName: 'nightly', dueAt: '2026-11-29T03:00:00.000Z', reason: 'the previous run is still going' };
const requested: JobRunEvent = { type: 'JobRunRequested', data: request };
const started: JobRunEvent = { type: 'JobRunStarted', data: { containerName: 'slipway-run-x', releaseId: 'r', releaseVersion: 3, imageId: 'sha256:ab' } };
const succeeded: JobRunEvent = { type: 'JobRunFinished', data: { status: 'succeeded', exitCode: 0, durationMs: 40, reason: null } };

t.test('a run is requested or skipped once per id: a second request is a no-op, not an error', async (t) => {
  spec.given().when('request', request).then(t, [requested]);
  spec.given(requested).when('request', request).then(t, [], 'requested twice: the second records nothing');
  spec.given(requested).when('request', { ...request, command: ['other'] }).then(t, [], 'whatever the second asks for');
  spec.given().when('skip', skip).then(t, [{ type: 'JobRunSkipped', data: skip }]);
  spec.given({ type: 'JobRunSkipped', data: skip }).when('request', request).then(t, [], 'a skipped due time never runs later');
  spec.given(requested).when('skip', skip).then(t, [], 'a requested one is not skipped afterwards');
});

t.test('started once, from the queue; one outcome, the first', async (t) => {
  const start = { containerName: 'slipway-run-x', releaseId: 'r', releaseVersion: 3, imageId: 'sha256:ab' };
  spec.given(requested).when('start', start).then(t, [started]);
  spec.given(requested, started).when('start', start).then(t, [], 'started once');
  spec.given().when('start', start).then(t, [], 'nothing to start without a request');
  spec.given(requested, started).when('finish', succeeded.data).then(t, [succeeded]);
  spec.given(requested).when('finish', { status: 'failed', exitCode: null, durationMs: 0, reason: 'the service is stopped' })
    .then(t, [{ type: 'JobRunFinished', data: { status: 'failed', exitCode: null, durationMs: 0, reason: 'the service is stopped' } }], 'a queued run can fail before it starts');
  spec.given(requested, started, succeeded).when('finish', { status: 'failed', exitCode: 1, durationMs: 9, reason: 'late' }).then(t, [], 'a late outcome is dropped');
  t.same(spec.given(requested, started, succeeded).state.outcome, succeeded.data);
});

t.test('cancel: a queued run ends at once, a running one is stopped by the runner, a finished one is left as it is', async (t) => {
  const asked: JobRunEvent = { type: 'JobRunCancelRequested', data: { reason: 'by request' } };
  spec.given(requested).when('cancel', 'by request').then(t, [asked, { type: 'JobRunFinished', data: { status: 'canceled', exitCode: null, durationMs: 0, reason: 'by request' } }]);
  spec.given(requested, started).when('cancel', 'by request').then(t, [asked], 'running: asked, and the runner records the end');
  spec.given(requested, started, asked).when('cancel', 'again').then(t, [], 'asked once');
  spec.given(requested, started, succeeded).when('cancel', 'too late').then(t, [], 'cancel after finish is a no-op');
  spec.given({ type: 'JobRunSkipped', data: skip }).when('cancel', 'x').then(t, [], 'a skipped one has nothing to cancel');
  spec.given().when('cancel', 'x').thenThrows(t, { code: 'not_found' });
  spec.given(requested, asked, { type: 'JobRunFinished', data: { status: 'canceled', exitCode: null, durationMs: 0, reason: 'by request' } })
    .when('start', { containerName: 'c', releaseId: 'r', releaseVersion: 1, imageId: 'i' }).then(t, [], 'a run canceled while queued never starts');
});

t.test('a command as a string runs through sh -c, an array as argv', async (t) => {
  t.same(argvOf('npm run migrate && echo done'), ['sh', '-c', 'npm run migrate && echo done']);
  t.same(argvOf(['node', 'seed.js', '--force']), ['node', 'seed.js', '--force']);
});
