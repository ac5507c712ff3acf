import t from 'tap';
import { pushOverLimits, type RepositoryState } from '../../src/git/push-limits.js';

const ZERO = '0'.repeat(40);
const A = 'a'.repeat(40);
const state = (over: Partial<RepositoryState> = {}): RepositoryState => ({ sizeBytes: 100, limitBytes: 1000, refs: new Set(['refs/heads/main']), maxRefs: 3, ...over });

t.test('a push that fits passes', async (t) => {
  t.equal(pushOverLimits(state(), [{ oldSha: ZERO, newSha: A, ref: 'refs/heads/dev' }]), null);
});

t.test('over the quota: refused with both sizes, unless the push only deletes', async (t) => {
  const over = state({ sizeBytes: 3 * 1024 * 1024, limitBytes: 1024 * 1024 });
  t.match(pushOverLimits(over, [{ oldSha: ZERO, newSha: A, ref: 'refs/heads/dev' }]), /3\.0 MB, over its quota of 1\.0 MB/);
  t.equal(pushOverLimits(over, [{ oldSha: A, newSha: ZERO, ref: 'refs/heads/main' }]), null);
});

t.test('refs: counted after the push; updates of existing refs and deletions do not add', async (t) => {
  const updates = ['a', 'b', 'c'].map((name) => ({ oldSha: ZERO, newSha: A, ref: `refs/tags/${name}` }));
  t.match(pushOverLimits(state(), updates), /with 4 refs, over its limit of 3/);
  t.equal(pushOverLimits(state(), [...updates.slice(0, 2), { oldSha: A, newSha: A, ref: 'refs/heads/main' }]), null);
  t.equal(pushOverLimits(state(), [...updates, { oldSha: A, newSha: ZERO, ref: 'refs/heads/main' }]), null, 'one in, one out');
  const full = state({ refs: new Set(['r1', 'r2', 'r3', 'r4', 'r5']) });
  t.equal(pushOverLimits(full, [{ oldSha: A, newSha: ZERO, ref: 'r1' }]), null, 'a repository over the limit may shrink');
});
