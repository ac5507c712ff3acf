import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { startTestServer } from '../helpers/test-server.js';

const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`git:${password}`).toString('base64')}` });

t.test('the Git remote: only the smart protocol, only source services, wrong keys limited like the API’s', async (t) => {
  const s = await startTestServer({ SLIPWAY_KEY_FAILURES_PER_MINUTE: '3' });
  t.teardown(() => s.close());
  const project = await createProject(s, 'Remotes');
  const svc = await createService(s, project.id, { name: 'app', repoFullName: 'acme/app', branch: 'main' });
  const image = await createService(s, project.id, { name: 'img', repoUrl: 'docker-image', dockerImage: 'slipway/runtime-static:bookworm' });
  const get = (path: string, headers: Record<string, string> = basic(s.key)) => fetch(`${s.url}${path}`, { headers });

  const refs = await get(`/git/${svc.id}.git/info/refs?service=git-upload-pack`);
  t.equal(refs.status, 200);
  t.equal(refs.headers.get('content-type'), 'application/x-git-upload-pack-advertisement', 'git http-backend answered');
  t.equal((await get(`/git/${project.slug}/${svc.slug}.git/info/refs?service=git-receive-pack`)).status, 200, 'by slugs too');
  t.equal((await get(`/git/${svc.id}.git/info/refs`)).status, 403, 'the dumb protocol is not served');
  t.equal((await get(`/git/${svc.id}.git/HEAD`)).status, 404, 'nor its files');
  t.equal((await get(`/git/${svc.id}.git/git-upload-pack`)).status, 405, 'the RPC is a POST');
  t.equal((await get(`/git/${image.id}.git/info/refs?service=git-upload-pack`)).status, 404, 'an image service has no Git remote');
  t.equal((await get(`/git/00000000-0000-4000-8000-000000000000.git/info/refs?service=git-upload-pack`)).status, 404);
  const error = await (await get(`/git/${svc.id}.git/info/refs?service=git-upload-pack`, {})).json();
  t.match(error, { error: { code: 'unauthorized' } }, 'the one error body');

  for (let i = 0; i < 3; i++) t.equal((await get(`/git/${svc.id}.git/info/refs?service=git-upload-pack`, basic(`slw_wrong-${i}`))).status, 401);
  const limited = await get(`/git/${svc.id}.git/info/refs?service=git-upload-pack`, basic('slw_wrong-again'));
  t.equal(limited.status, 429, 'the address is limited after three unknown keys');
  t.ok(limited.headers.get('retry-after'));
  t.equal((await get(`/git/${svc.id}.git/info/refs?service=git-receive-pack`)).status, 200, 'a valid key is still served from the limited address');
  t.equal((await s.call('GET', '/api/projects', { key: 'slw_other' })).status, 429, 'and the API shares the limit for unknown keys');
  t.equal((await s.call('GET', '/api/projects')).status, 200, 'not for a valid one');
});

t.test('a push larger than SLIPWAY_GIT_PUSH_LIMIT_MB is refused while it arrives; a small one is stored', async (t) => {
  const s = await startTestServer({ SLIPWAY_GIT_PUSH_LIMIT_MB: '1' });
  t.teardown(() => s.close());
  const project = await createProject(s, 'Limits');
  const svc = await createService(s, project.id, { name: 'app', repoFullName: 'acme/app', branch: 'main' });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };
  const work = mkdtempSync(join(tmpdir(), 'slipway-push-limit-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=dev', '-c', 'user.email=dev@example.com', ...args], { cwd: work, env, stdio: 'ignore' });
  // Asynchronously: the server answering the push runs in this process.
  const push = (refspec: string) =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      const child = spawn('git', ['push', `${s.url.replace('://', `://git:${s.key}@`)}/git/${svc.id}.git`, refspec], { cwd: work, env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
    });
  git('init', '-q', '-b', 'feature');
  writeFileSync(join(work, 'notes.txt'), 'small\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'small');
  const small = await push('HEAD:refs/heads/small');
  t.equal(small.code, 0, `a small push to another branch is stored:\n${small.stderr}`);
  writeFileSync(join(work, 'blob.bin'), randomBytes(3 * 1024 * 1024));
  git('add', '-A');
  git('commit', '-q', '-m', 'large');
  const large = await push('HEAD:refs/heads/large');
  t.not(large.code, 0, 'the 3 MB push fails');
  t.match(large.stderr, /pack exceeds maximum allowed size/, 'git says why');
  const refs = await fetch(`${s.url}/git/${svc.id}.git/info/refs?service=git-upload-pack`, { headers: basic(s.key) });
  const advertised = await refs.text();
  t.ok(advertised.includes('refs/heads/small') && !advertised.includes('refs/heads/large'), 'only the small branch is there');
});
