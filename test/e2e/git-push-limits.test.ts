import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import t from 'tap';
import { MAX_PUSHED_REFS } from '../../src/git/push-limits.js';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { startTestServer } from '../helpers/test-server.js';

const gitEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=dev', '-c', 'user.email=dev@example.com', ...args], { cwd, env: gitEnv, encoding: 'utf8' }).trim();

/** A real `git push` (asynchronous: the server under test runs in this process). */
function push(cwd: string, remote: string, ...refspecs: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', ['push', '--porcelain', remote, ...refspecs], { cwd, env: gitEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

function remoteRefs(remote: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['ls-remote', remote], { env: gitEnv, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out.split('\n').filter(Boolean).map((l) => l.split('\t')[1]!)) : reject(new Error(`ls-remote exited ${code}`))));
  });
}

/** Every file under the repository's object store, quarantines included. */
function objectFiles(repository: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else found.push(relative(repository, join(dir, entry.name)));
    }
  };
  walk(join(repository, 'objects'));
  return found.sort();
}

t.test('a pushed repository has a size quota and a refs limit; a refused push keeps nothing', async (t) => {
  const s = await startTestServer({ SLIPWAY_GIT_REPO_LIMIT_MB: '1' });
  t.teardown(() => s.close());
  const project = await createProject(s, 'Quotas');
  const writer = await createKey(s, 'write', [project.id]);
  const remoteOf = (id: string) => `${s.url.replace('://', `://anyone:${writer.secret}@`)}/git/${id}.git`;
  const work = mkdtempSync(join(tmpdir(), 'slipway-push-limits-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  git(work, 'init', '-q', '-b', 'main');
  writeFileSync(join(work, 'README.md'), 'small\n');
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'small');

  await t.test('a pack larger than what is left of the quota is refused while it arrives', async (t) => {
    const svc = await createService(s, project.id, { name: 'big-pack', repoFullName: 'acme/big', branch: 'main' });
    const repository = join(s.dataDir, 'git', `${svc.id}.git`);
    t.equal((await push(work, remoteOf(svc.id), 'HEAD:refs/heads/small')).code, 0, 'a small push fits');
    const before = objectFiles(repository);
    git(work, 'checkout', '-q', '-b', 'big');
    writeFileSync(join(work, 'blob.bin'), randomBytes(1536 * 1024));
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', 'incompressible 1.5 MB');
    const pushed = await push(work, remoteOf(svc.id), 'HEAD:refs/heads/big');
    t.not(pushed.code, 0, 'git push failed');
    t.match(pushed.stderr, /pack exceeds maximum allowed size|unpack failed/, `git says why:\n${pushed.stderr}`);
    t.same(await remoteRefs(remoteOf(svc.id)), ['refs/heads/small'], 'no ref was added');
    t.same(objectFiles(repository), before, 'no object of the refused push is kept');
    git(work, 'checkout', '-q', 'main');
  });

  await t.test('a push whose objects take more than the quota on disk is refused in pre-receive, with the reason', async (t) => {
    const svc = await createService(s, project.id, { name: 'many-objects', repoFullName: 'acme/many', branch: 'main' });
    const repository = join(s.dataDir, 'git', `${svc.id}.git`);
    t.equal((await push(work, remoteOf(svc.id), 'HEAD:refs/heads/small')).code, 0, 'a small push fits');
    const before = objectFiles(repository);
    // 90 near-identical files: a small pack of deltas, which git stores as 90 full objects (under 100 objects,
    // receive-pack unpacks them): about 2 MB on disk.
    git(work, 'checkout', '-q', '-b', 'many');
    const shared = randomBytes(24 * 1024).toString('base64');
    for (let i = 0; i < 90; i++) writeFileSync(join(work, `copy-${i}.txt`), `${i}\n${shared}`);
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', 'copies');
    const pushed = await push(work, remoteOf(svc.id), 'HEAD:refs/heads/many');
    t.not(pushed.code, 0, 'git push failed');
    t.match(pushed.stderr, /remote: this push would make the service's repository [\d.]+ MB, over its quota of 1\.0 MB/, `the reason is shown:\n${pushed.stderr}`);
    t.same(await remoteRefs(remoteOf(svc.id)), ['refs/heads/small'], 'no ref was added');
    t.same(objectFiles(repository), before, 'its quarantined objects are gone');
    git(work, 'checkout', '-q', 'main');
  });

  await t.test(`a push past ${MAX_PUSHED_REFS} refs is refused; one that removes refs is not`, async (t) => {
    const svc = await createService(s, project.id, { name: 'many-refs', repoFullName: 'acme/refs', branch: 'main' });
    const remote = remoteOf(svc.id);
    for (let i = 0; i < MAX_PUSHED_REFS + 1; i++) git(work, 'tag', `v${i}`);
    t.teardown(() => git(work, 'tag', '-d', ...Array.from({ length: MAX_PUSHED_REFS + 1 }, (_, i) => `v${i}`)));
    const tooMany = await push(work, remote, 'refs/tags/*:refs/tags/*');
    t.not(tooMany.code, 0, 'git push failed');
    t.match(tooMany.stderr, new RegExp(`remote: this push would leave the service's repository with ${MAX_PUSHED_REFS + 1} refs, over its limit of ${MAX_PUSHED_REFS}`), tooMany.stderr);
    t.same(await remoteRefs(remote), [], 'no ref was added');
    const upTo = Array.from({ length: MAX_PUSHED_REFS }, (_, i) => `refs/tags/v${i}`);
    t.equal((await push(work, remote, ...upTo)).code, 0, `${MAX_PUSHED_REFS} refs fit`);
    const oneMore = await push(work, remote, `refs/tags/v${MAX_PUSHED_REFS}`);
    t.not(oneMore.code, 0, 'one more is refused');
    t.match(oneMore.stderr, /over its limit/);
    t.equal((await push(work, remote, ':refs/tags/v0')).code, 0, 'deleting a ref is let through');
    t.equal((await remoteRefs(remote)).length, MAX_PUSHED_REFS - 1);
  });

  t.notOk(
    readdirSync(join(s.dataDir, 'git')).some((name) => existsSync(join(s.dataDir, 'git', name, 'objects')) && readdirSync(join(s.dataDir, 'git', name, 'objects')).some((o) => o.startsWith('tmp_objdir'))),
    'no quarantine is left anywhere',
  );
});
