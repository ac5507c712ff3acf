import t from 'tap';
import { currentRelease, releaseHistory, releasesToPrune, rollbackTarget, type NewRelease } from '../../commands/release/aggregate.js';
import { deployment } from '../../commands/deployment/aggregate.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const releases = deciderSpec(releaseHistory);
const deployments = deciderSpec(deployment);
const release = (n: number, image = `sha256:${n}`): NewRelease => ({
  releaseId: `r${n}`,
  deploymentId: `d${n}`,
  imageId: image,
  imageRef: `slipway/app:d${n}`,
  commitSha: null,
  commitMessage: null,
  buildMethod: 'dockerfile',
  config: { env: 'sealed', startCommand: null, internalPort: 3000, runtimeMode: 'web' },
});
/** The history after recording each release in turn. */
const given = (...recorded: NewRelease[]) => recorded.reduce((h, r) => h.when('record', r).given(), releases.given());
const history = (...recorded: NewRelease[]) => given(...recorded).state;

t.test('versions count up per service; a deployment is recorded once', async (t) => {
  const h = given(release(1), release(2), release(3));
  t.same(h.state.releases.map((r) => r.version), [1, 2, 3]);
  h.when('record', release(2)).then(t, [], 'a retried record says nothing');
  h.when('prune', 'r1').given().when('prune', 'r1').then(t, [], 'pruned once');
  h.when('prune', 'unknown').then(t, []);
});

t.test('the rollback target: the one before the current, or the one asked for', async (t) => {
  const h = history(release(1), release(2), release(3));
  t.equal(rollbackTarget(h, 'd3').releaseId, 'r2', 'before the current');
  t.equal(rollbackTarget(h, 'd2').releaseId, 'r1', 'before the current, even when it is not the newest');
  t.equal(rollbackTarget(h, 'd3', 'r1').releaseId, 'r1', 'the one asked for');
  t.throws(() => rollbackTarget(h, 'd3', 'r9'), { code: 'not_found' });
  t.throws(() => rollbackTarget(h, 'd1'), { code: 'conflict' }, 'nothing before the first');
  t.throws(() => rollbackTarget(h, null), { code: 'conflict' }, 'nothing current');
  const pruned = given(release(1), release(2), release(3)).when('prune', 'r2').state;
  t.throws(() => rollbackTarget(pruned, 'd3'), { code: 'conflict', message: /v2 .*pruned/ }, 'a pruned image cannot be gone back to');
  t.throws(() => currentRelease(h, null, 'restart'), { code: 'conflict' });
  t.equal(currentRelease(h, 'd2', 'restart').releaseId, 'r2');
});

t.test('pruning keeps the newest releases, the current one, and every release sharing their image', async (t) => {
  // 4 and 5 are rollbacks: 4 runs 2's image, 5 runs 1's.
  const h = history(release(1), release(2), release(3), release(4, 'sha256:2'), release(5, 'sha256:1'), release(6));
  t.same(releasesToPrune(h, 2, 'd6').map((r) => r.releaseId), ['r2', 'r3', 'r4'], 'r1 shares the image of the kept r5');
  t.same(releasesToPrune(h, 1, 'd6').map((r) => r.releaseId), ['r2', 'r3', 'r4'], 'the one before the current stays (r5, and r1 with its image): an automatic rollback needs it');
  t.same(releasesToPrune(history(release(1), release(2), release(3), release(4)), 1, 'd2').map((r) => r.releaseId), ['r3'], 'the current release and the one before keep their images, wherever they are');
  t.same(releasesToPrune(history(release(1), release(2), release(3), release(4), release(5)), 1, 'd3').map((r) => r.releaseId), ['r1', 'r4'], 'after a rollback to r3: r5 by count, r3 current, r2 before it');
  t.same(releasesToPrune(h, 10, 'd6'), [], 'all within releasesKept');
});

t.test('a release that went live may be rolled back or its misbehaviour recorded, once', async (t) => {
  const queued = deployments.given().when('queue', 's', 'p', { kind: 'rollback', trigger: 'auto', releaseId: 'r1', config: 'release' }).given();
  t.same(queued.state.request, { kind: 'rollback', trigger: 'auto', releaseId: 'r1', config: 'release', commitSha: null, source: 'upstream' }, 'the request is part of the state (a rollback builds no commit)');
  const running = queued.when('start').given();
  running.when('rolledBack', 'x', null).then(t, [], 'not before it went live');
  const live = running.when('succeed').given();
  const rolled = live.when('rolledBack', 'exited', 'd2').given();
  t.equal(rolled.state.status, 'rolled_back');
  rolled.when('rolledBack', 'again', 'd3').then(t, [], 'once');
  const watched = live.when('watchFailed', 'exited').given();
  t.equal(watched.state.status, 'succeeded', 'recorded only: it keeps running');
  watched.when('watchFailed', 'again').then(t, [], 'once');
});
