import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { healthApp } from '../helpers/apps.js';
import { deploy, deployEnv, logLines } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { startTestServer } from '../helpers/test-server.js';

t.setTimeout(180_000);

t.test('an app that is up but answers 5xx to every probe fails the gate after ten answers, saying each', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/broken', healthApp('v1', 500));
  // The installation's own start timeout is a minute: the gate must not wait it out.
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_START_TIMEOUT: '60' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Broken');
  t.teardown(() => removeProjectLeftovers(p.id));
  const web = await createService(s, p.id, { name: 'web', repoFullName: 'acme/broken', branch: 'main', internalPort: 8080, healthCheck: { type: 'http', path: '/health', intervalSeconds: 5, timeoutSeconds: 2, retries: 1 } });

  const { queued, done } = await deploy(s, web.id);
  t.equal(done.status, 'failed');
  t.equal(done.reason, 'the app answered HTTP 500 on /health to 10 health checks in a row: it is up but failing; its own log lines above say why');
  const log = (await logLines(s, queued.id)).join('\n');
  for (let n = 1; n <= 10; n++) t.match(log, `Health check ${n}/10: HTTP 500 from /health (expected 200-399)`, `probe ${n} of 10 in the log`);
  const gateSeconds = (Date.parse(done.finishedAt) - Date.parse(done.startedAt)) / 1000;
  t.ok(gateSeconds < 45, `failed after ${gateSeconds} s of a 60 s start timeout, build included`);
});
