import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cloneBranch } from '../../src/build/git-source.js';
import { createDestinationPolicy } from '../../src/outbound/destination-policy.js';
import { startGitServer } from '../helpers/git-server.js';

const git = await startGitServer();
t.teardown(() => git.close());
const gitPort = new URL(git.baseUrl).port;
const policy = createDestinationPolicy({ rules: async () => ({ allowed: [`127.0.0.1:${gitPort}`], denyPrivate: false }) });

t.test('a build of a pushed commit gets that commit, even after the branch moved on', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'slipway-clone-commit-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const first = git.push('acme/moving', { 'version.txt': 'one' });
  const second = git.commit('acme/moving', { 'version.txt': 'two' });
  const clone = (dir: string, commit: string | null) =>
    cloneBranch({ url: `${git.baseUrl}/acme/moving.git`, branch: 'main', commit, token: null, dir: join(work, dir), signal: new AbortController().signal, onLine: () => undefined, outbound: policy });

  t.same(await clone('tip', null), { sha: second, message: 'update' }, 'without a commit: the branch tip');
  t.equal(readFileSync(join(work, 'tip', 'version.txt'), 'utf8'), 'two');
  t.equal((await clone('tip-asked', second)).sha, second, 'the tip asked for by id');
  t.equal((await clone('older', first)).sha, first, 'an older commit of the branch, by id');
  t.equal(readFileSync(join(work, 'older', 'version.txt'), 'utf8'), 'one', 'its files, not the tip’s');
  t.equal(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: join(work, 'older'), encoding: 'utf8' }).trim(), first);

  const unknown = 'f'.repeat(40);
  await t.rejects(clone('unknown', unknown), { message: new RegExp(`commit ${unknown} is not on branch main`) }, 'a commit the server does not have fails with its id');
});
