import t from 'tap';
import { ANOTHER_PUSH_DEPLOYING, gitPushRunning, supersededBy, type OtherDeployment } from '../../commands/auto-deploy/push-supersede.js';
import { decideGitPush } from '../../commands/auto-deploy/push-verdict.js';

const sha = (c: string) => c.repeat(40);
const ZERO = sha('0');
const other = (id: string, over: Partial<OtherDeployment> = {}): OtherDeployment => ({ id, trigger: 'webhook', status: 'queued', queuedAt: '0001', ...over });

t.test('supersededBy: the queued deployments of earlier pushes, either way, and nothing else', async (t) => {
  const own = { id: 'mine', queuedAt: '0005' };
  t.same(supersededBy(own, [other('hook'), other('git', { trigger: 'push', queuedAt: '0002' })]), ['hook', 'git'], 'a delivery’s and a git push’s, both queued before');
  t.same(supersededBy(own, [other('running', { status: 'running' })]), [], 'a running one is not interrupted');
  t.same(supersededBy(own, [other('manual', { trigger: 'manual' }), other('rollback', { trigger: 'auto' })]), [], 'a request’s or a rollback’s is the deployer’s to supersede');
  t.same(supersededBy(own, [other('newer', { queuedAt: '0009' })]), [], 'one queued after it is newer: it is not replaced by an older push');
  t.same(supersededBy(own, [other('mine', { queuedAt: '0001' })]), [], 'never itself');
  t.same(supersededBy(own, [other('never', { status: 'none', queuedAt: null })]), [], 'a named deployment never queued');
  t.same(supersededBy(own, [other('done', { status: 'succeeded' }), other('gone', { status: 'canceled' })]), [], 'finished ones');
});

t.test('gitPushRunning: a git push yields to another git push’s running deployment; a delivery never does', async (t) => {
  const running = [other('g', { trigger: 'push', status: 'running' })];
  t.equal(gitPushRunning('git', 'mine', running), 'g');
  t.equal(gitPushRunning('webhook', 'mine', running), null, 'a delivery moves no ref: it queues behind');
  t.equal(gitPushRunning('git', 'mine', [other('w', { status: 'running' })]), null, 'a delivery’s running deployment holds no push back');
  t.equal(gitPushRunning('git', 'mine', [other('g', { trigger: 'push', status: 'queued' })]), null, 'a queued one is replaced, not waited for');
  t.equal(gitPushRunning('git', 'g', running), null, 'not its own');
  t.match(ANOTHER_PUSH_DEPLOYING, /^another push to this service is deploying/);
});

t.test('decideGitPush: the service branch moved to a commit from where it is deploys', async (t) => {
  const main = { ref: 'refs/heads/main', oldSha: sha('a'), newSha: sha('b') };
  t.same(decideGitPush([main], 'main', sha('a')), { deploy: sha('b') });
  t.same(decideGitPush([{ ...main, ref: 'refs/heads/feature' }, { ...main, ref: 'refs/tags/v1' }], 'main', sha('a')), { skipped: 'branch' }, 'other refs are stored');
  t.same(decideGitPush([{ ...main, newSha: ZERO }], 'main', sha('a')), { skipped: 'deleted' });
  t.match(decideGitPush([main], 'main', sha('c')), { refused: /^branch main moved while this push was on its way/ }, 'git would refuse the update');
  t.same(decideGitPush([{ ...main, oldSha: ZERO }], 'main', ZERO), { deploy: sha('b') }, 'a new branch');
});
