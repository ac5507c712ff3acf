import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, logLines } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('an app that exits before it is ready: its last output is in the deployment log, every time', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  git.push('acme/crashy', {
    Dockerfile: `FROM ${TEST_IMAGES.web}\nCMD ["sh", "-c", "echo starting up; echo 'boom: missing DATABASE_URL' >&2; exit 1"]\n`,
  });
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Crash output');
  t.teardown(() => removeProjectLeftovers(p.id));
  const svc = await createService(s, p.id, { name: 'crashy', repoFullName: 'acme/crashy', branch: 'main', internalPort: 8080 });

  for (let run = 1; run <= 5; run++) {
    const { done } = await deploy(s, svc.id);
    t.match(done, { status: 'failed', reason: /exited with code 1 before it was ready/ }, `run ${run}: failed`);
    const lines = await logLines(s, done.id);
    const boom = lines.indexOf('boom: missing DATABASE_URL');
    t.ok(boom >= 0, `run ${run}: the crash message is in the log`);
    t.ok(boom < lines.findIndex((l) => l.startsWith('Deployment failed')), `run ${run}: before the failure line`);
  }
});
