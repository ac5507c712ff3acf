import t from 'tap';
import { deployment } from '../../commands/deployment/aggregate.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(deployment);
const queued = spec.given().when('queue', 's1', 'p1').given();
const running = queued.when('start').given();
// Asked to abort while still queued (an abort request recorded before the deployer took it).
const askedWhileQueued = spec.given(...queued.history, { type: 'DeploymentAbortRequested', data: {} });

t.test('queued, then running, then succeeded', async (t) => {
  t.match(queued.state, { status: 'queued', serviceId: 's1' });
  queued.when('queue', 's1', 'p1').thenThrows(t, { code: 'conflict' });
  t.equal(running.state.status, 'running');
  running.when('start').then(t, [], 'started once');
  const built = running.when('progress', { type: 'DeploymentImageBuilt', data: { imageTag: 'x', buildMethod: 'dockerfile', imageId: 'sha256:1', digest: null } }).given();
  const done = built.when('succeed').given();
  t.equal(done.state.status, 'succeeded');
  done.when('fail', 'late').then(t, [], 'a finished deployment stays finished');
  done.when('progress', { type: 'DeploymentContainerStarted', data: { containerName: 'c' } }).then(t, []);
});

t.test('the success carries the release it made live and the end of its watch, in the same event; old successes still read', async (t) => {
  const release = { releaseId: 'r1', imageId: 'sha256:1', imageRef: 'x', commitSha: null, commitMessage: null, buildMethod: 'dockerfile' as const, config: { env: 'enc', startCommand: null, internalPort: 8080, runtimeMode: 'web' } };
  const succeeded = running.when('succeed', { release, watchUntil: '2026-01-01T00:01:00.000Z' });
  succeeded.then(t, [{ type: 'DeploymentSucceeded', data: { release, watchUntil: '2026-01-01T00:01:00.000Z' } }]);
  t.equal(succeeded.state.status, 'succeeded');
  t.same(succeeded.state.wentLive, release, 'the release a request records when the deployer has not yet');
  t.same(deployment.parse({ type: 'DeploymentSucceeded', schemaVersion: 1, data: {} }), { type: 'DeploymentSucceeded', data: {} }, 'a success recorded before (no release, no watch) parses');
});

t.test('abort: queued ends at once, running is asked to stop, finished is a conflict', async (t) => {
  queued.when('abort').then(t, [{ type: 'DeploymentAborted', data: { reason: 'aborted before it started' } }]);
  const asked = running.when('abort').given();
  t.equal(asked.state.status, 'running');
  t.ok(asked.state.abortRequested);
  asked.when('abort').then(t, [], 'asking twice is a no-op');
  asked.when('succeed').then(t, [{ type: 'DeploymentAborted', data: { reason: 'aborted by request' } }], 'an aborted run never becomes succeeded');
  const aborted = asked.when('markAborted', 'container removed').given();
  t.equal(aborted.state.status, 'aborted');
  aborted.when('abort').thenThrows(t, { code: 'conflict' });
  const failed = running.when('fail', 'build failed').given();
  failed.when('abort').thenThrows(t, { code: 'conflict', message: 'the deployment has already failed' });
  spec.given().when('abort').thenThrows(t, { code: 'not_found' });
});

t.test('a deployment aborted while queued is never started', async (t) => {
  t.ok(askedWhileQueued.state.abortRequested);
  askedWhileQueued.when('start').then(t, []);
});

t.test('cancel: only a queued deployment ends canceled, naming what replaced it; it is then finished', async (t) => {
  const canceling = queued.when('cancel', 'replaced by a newer push of abc', 'd2');
  canceling.then(t, [{ type: 'DeploymentCanceled', data: { reason: 'replaced by a newer push of abc', replacedBy: 'd2' } }]);
  const canceled = canceling.given();
  t.equal(canceled.state.status, 'canceled');
  canceled.when('start').then(t, [], 'never started');
  canceled.when('cancel', 'again', null).then(t, [], 'canceled once');
  canceled.when('abort').thenThrows(t, { code: 'conflict', message: 'the deployment has already canceled' });
  running.when('cancel', 'x', null).then(t, [], 'a running one is not interrupted');
  askedWhileQueued.when('cancel', 'x', null).then(t, [], 'nor one being aborted');
});
