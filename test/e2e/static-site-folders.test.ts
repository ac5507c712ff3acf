import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, logLines, outcome, probe } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('static sites without a build: served from public/, and a site whose / answers 404 is not ready', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/public-site', { 'README.md': '# site\n', 'public/index.html': '<h1>from public</h1>\n', 'public/about.html': 'about\n' });
  git.push('acme/misplaced', { 'README.md': '# site\n', 'docs/index.html': '<h1>in docs</h1>\n' });
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_START_TIMEOUT: '5' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Static folders');
  t.teardown(() => removeProjectLeftovers(p.id));

  const site = await createService(s, p.id, { name: 'public-site', repoFullName: 'acme/public-site', branch: 'main', runtimeMode: 'static' });
  const served = await deploy(s, site.id);
  t.equal(outcome(served.done), 'succeeded');
  t.match((await logLines(s, served.done.id)).join('\n'), 'packbuilder: served from public/');
  t.same(await probe(site.hostPort), { status: 200, body: '<h1>from public</h1>\n' }, 'public/index.html answers /');

  const misplaced = await createService(s, p.id, { name: 'misplaced', repoFullName: 'acme/misplaced', branch: 'main', runtimeMode: 'static' });
  const failed = await deploy(s, misplaced.id);
  t.match(failed.done, { status: 'failed', reason: /last probe: HTTP 404 from \/ \(expected 200-399\)/ }, 'a site that answers 404 on / never goes live');
  t.match(await s.call('GET', `/api/services/${misplaced.id}/overview`), { body: { service: { status: 'failed', reachable: false } } });
});
