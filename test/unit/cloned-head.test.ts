import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { clonedHead } from '../../src/build/cloned-head.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

t.test('the commit of a fresh shallow clone, as git rev-parse says it', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'slipway-head-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const origin = join(root, 'origin');
  execFileSync('git', ['init', '-q', '-b', 'main', origin]);
  writeFileSync(join(origin, 'a'), '1');
  git(origin, 'add', '.');
  git(origin, 'commit', '-qm', 'one');
  git(origin, 'tag', 'v1');
  writeFileSync(join(origin, 'a'), '2');
  git(origin, 'commit', '-qam', 'two');
  git(origin, 'checkout', '-qb', 'feature/x');
  const clone = (name: string, branch: string) => {
    git(root, 'clone', '-q', '--depth', '1', '--single-branch', '--branch', branch, '--no-tags', `file://${origin}`, name);
    return join(root, name);
  };
  for (const [name, branch] of [['main', 'main'], ['slashed', 'feature/x'], ['tag', 'v1']] as const) {
    const dir = clone(name, branch);
    t.equal(clonedHead(dir), git(dir, 'rev-parse', 'HEAD'), `${branch}`);
  }
  const packed = clone('packed', 'main');
  git(packed, 'pack-refs', '--all');
  t.equal(clonedHead(packed), git(packed, 'rev-parse', 'HEAD'), 'a packed ref');

  const odd = clone('odd', 'main');
  writeFileSync(join(odd, '.git', 'HEAD'), 'ref: refs/heads/../../../etc/passwd\n');
  t.equal(clonedHead(odd), null, 'a ref that leaves .git: git is asked instead');
  writeFileSync(join(odd, '.git', 'HEAD'), 'ref: refs/remotes/origin/main\n');
  t.equal(clonedHead(odd), null, 'anything but a branch: git is asked instead');
  t.equal(clonedHead(join(root, 'missing')), null, 'no clone');
});
