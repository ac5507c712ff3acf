import { execFileSync } from 'node:child_process';
import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { databaseService } from '../helpers/http-resources.js';
import { deploy, deployEnv, logLines } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
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

t.test('a database whose engine exits at start: its last output is in the deployment log, every time', { skip: await requireDocker() }, async (t) => {
  // Stands in for the engine's image (an installation setting): whatever command Slipway gives it, it fails.
  const image = `slipway-small-test/crashing-engine-${process.pid}:1`;
  execFileSync('docker', ['build', '-q', '-t', image, '-'], {
    input: `FROM ${TEST_IMAGES.web}\nENTRYPOINT ["sh", "-c", "echo 'boom: /data is not writable' >&2; exit 1"]\n`,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  t.teardown(() => docker.getImage(image).remove({ force: true }).catch(() => undefined));
  const { env } = await deployEnv({ SLIPWAY_DB_IMAGE_REDIS: image });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Crash output of a database');
  t.teardown(() => removeProjectLeftovers(p.id));
  const cache = await createService(s, p.id, databaseService('cache', 'redis'));
  for (let run = 1; run <= 5; run++) {
    const { done } = await deploy(s, cache.id);
    t.match(done, { status: 'failed', reason: /the database exited with code 1 before it answered/ }, `run ${run}: failed`);
    t.ok((await logLines(s, done.id)).includes('boom: /data is not writable'), `run ${run}: the crash message is in the log`);
  }
});
