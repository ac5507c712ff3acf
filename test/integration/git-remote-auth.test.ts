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
  t.equal((await s.call('GET', '/api/projects', { key: 'slw_other' })).status, 429, 'and the API shares the limit');
});
