import t from 'tap';
import {
  decideAbort,
  decideCancel,
  decideFail,
  decideMarkAborted,
  decideProgress,
  decideQueue,
  decideStart,
  decideSucceed,
  deployment,
  type DeploymentState,
} from '../../commands/deployment/aggregate.js';
import type { DeploymentEvent } from '../../commands/deployment/events.js';

const apply = (state: DeploymentState, events: DeploymentEvent[]) => events.reduce(deployment.evolve, state);
const queued = apply(deployment.initial, decideQueue(deployment.initial, 's1', 'p1'));
const running = apply(queued, decideStart(queued));

t.test('queued, then running, then succeeded', async (t) => {
  t.match(queued, { status: 'queued', serviceId: 's1' });
  t.throws(() => decideQueue(queued, 's1', 'p1'), { code: 'conflict' });
  t.equal(running.status, 'running');
  t.same(decideStart(running), [], 'started once');
  const built = apply(running, decideProgress(running, { type: 'DeploymentImageBuilt', data: { imageTag: 'x', buildMethod: 'dockerfile', imageId: 'sha256:1', digest: null } }));
  const done = apply(built, decideSucceed(built));
  t.equal(done.status, 'succeeded');
  t.same(decideFail(done, 'late'), [], 'a finished deployment stays finished');
  t.same(decideProgress(done, { type: 'DeploymentContainerStarted', data: { containerName: 'c' } }), []);
});

t.test('the success carries the release it made live and the end of its watch, in the same event; old successes still read', async (t) => {
  const release = { releaseId: 'r1', imageId: 'sha256:1', imageRef: 'x', commitSha: null, commitMessage: null, buildMethod: 'dockerfile' as const, config: { env: 'enc', startCommand: null, internalPort: 8080, runtimeMode: 'web' } };
  const events = decideSucceed(running, { release, watchUntil: '2026-01-01T00:01:00.000Z' });
  t.same(events, [{ type: 'DeploymentSucceeded', data: { release, watchUntil: '2026-01-01T00:01:00.000Z' } }]);
  t.equal(apply(running, events).status, 'succeeded');
  t.same(apply(running, events).wentLive, release, 'the release a request records when the deployer has not yet');
  t.same(deployment.parse({ type: 'DeploymentSucceeded', schemaVersion: 1, data: {} }), { type: 'DeploymentSucceeded', data: {} }, 'a success recorded before (no release, no watch) parses');
});

t.test('abort: queued ends at once, running is asked to stop, finished is a conflict', async (t) => {
  t.same(decideAbort(queued), [{ type: 'DeploymentAborted', data: { reason: 'aborted before it started' } }]);
  const asked = apply(running, decideAbort(running));
  t.equal(asked.status, 'running');
  t.ok(asked.abortRequested);
  t.same(decideAbort(asked), [], 'asking twice is a no-op');
  t.same(decideSucceed(asked), [{ type: 'DeploymentAborted', data: { reason: 'aborted by request' } }], 'an aborted run never becomes succeeded');
  const aborted = apply(asked, decideMarkAborted(asked, 'container removed'));
  t.equal(aborted.status, 'aborted');
  t.throws(() => decideAbort(aborted), { code: 'conflict' });
  const failed = apply(running, decideFail(running, 'build failed'));
  t.throws(() => decideAbort(failed), { code: 'conflict', message: 'the deployment has already failed' });
  t.throws(() => decideAbort(deployment.initial), { code: 'not_found' });
});

t.test('a deployment aborted while queued is never started', async (t) => {
  const askedWhileQueued = { ...queued, abortRequested: true };
  t.same(decideStart(askedWhileQueued), []);
});

t.test('cancel: only a queued deployment ends canceled, naming what replaced it; it is then finished', async (t) => {
  const events = decideCancel(queued, 'replaced by a newer push of abc', 'd2');
  t.same(events, [{ type: 'DeploymentCanceled', data: { reason: 'replaced by a newer push of abc', replacedBy: 'd2' } }]);
  const canceled = apply(queued, events);
  t.equal(canceled.status, 'canceled');
  t.same(decideStart(canceled), [], 'never started');
  t.same(decideCancel(canceled, 'again', null), [], 'canceled once');
  t.throws(() => decideAbort(canceled), { code: 'conflict', message: 'the deployment has already canceled' });
  t.same(decideCancel(running, 'x', null), [], 'a running one is not interrupted');
  t.same(decideCancel({ ...queued, abortRequested: true }, 'x', null), [], 'nor one being aborted');
});
