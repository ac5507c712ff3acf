import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { requireCaddy } from '../helpers/caddy.js';
import { deploy, deployEnv, logLines, outcome, probe, steadyLoad, waitForDeployment } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { eventually } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';

t.setTimeout(300_000);

const SECRET = 'release-secret-value-7hq2w';
/** Answers its version and GREETING; the release command says what it migrates with, and fails when FAIL=yes. */
const app = (version: string) => ({
  Dockerfile: 'FROM slipway/runtime-python:bookworm\nWORKDIR /app\nCOPY server.py migrate.sh ./\nCMD ["python3", "-u", "server.py"]\n',
  'migrate.sh': `#!/bin/sh
echo "migrating ${version} with $GREETING"
if [ "$FAIL" = yes ]; then echo "migration broke near $API_TOKEN" >&2; exit 4; fi
echo "migrated"
`,
  'server.py': `import http.server, os, signal, sys
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("${version} " + os.environ.get("GREETING", "-")).encode()
        self.send_response(200); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, fmt, *args):
        pass
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`,
});

t.test('the release command runs before the switch, fails a deployment without switching, and skips rollbacks unless asked', { skip: (await requireDocker()) || (await requireCaddy()) }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_DRAIN: '1' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Release phase');
  t.teardown(() => removeProjectLeftovers(project.id));
  const svc = await createService(s, project.id, {
    name: 'shop', repoFullName: 'acme/shop', branch: 'main', internalPort: 8080, watchSeconds: 0,
    releaseCommand: 'sh migrate.sh',
    env: [{ key: 'GREETING', value: 'one' }, { key: 'API_TOKEN', value: SECRET }],
  });
  t.match(svc, { releaseCommand: 'sh migrate.sh', releaseCommandOnRollback: false }, 'the service shows its release command');
  const answer = async () => (await probe(svc.hostPort)).body;
  const setVariable = async (key: string, value: string) => t.equal((await s.call('POST', `/api/services/${svc.id}/env`, { body: { key, value } })).status, 200, `${key} set`);

  git.push('acme/shop', app('v1'));
  const first = (await deploy(s, svc.id)).done;
  t.equal(outcome(first), 'succeeded');
  let log = await logLines(s, first.id);
  const ran = log.findIndex((l) => l === 'migrating v1 with one');
  t.ok(ran >= 0, 'its output is in the deployment’s log, with the new variables');
  t.equal(log.filter((l) => l.startsWith('migrating')).length, 1, 'it ran once');
  t.ok(ran < log.findIndex((l) => /^Started container/.test(l)), 'before the new container was started');
  t.equal(await answer(), 'v1 one');

  await t.test('a failing release command fails the deployment; the old release answers every request meanwhile', async (t) => {
    git.push('acme/shop', app('v2'));
    await setVariable('GREETING', 'two');
    await setVariable('FAIL', 'yes');
    const load = steadyLoad(svc.hostPort, 'localhost');
    const failed = (await deploy(s, svc.id)).done;
    const results = await load.stop();
    t.equal(failed.status, 'failed');
    // stdout and stderr reach the engine through two pipes: lines written together may arrive in either order.
    t.match(failed.reason, /^the release command exited with code 4; nothing was switched:\n/, 'the reason says what happened');
    t.same(failed.reason.split('\n').slice(1).sort(), ['migrating v2 with two', 'migration broke near [redacted]'], 'and holds its last lines, redacted');
    t.notMatch(JSON.stringify(await logLines(s, failed.id)) + failed.reason, SECRET, 'the secret is in neither the log nor the reason');
    t.ok(results.length > 10, `requests were sent throughout (${results.length})`);
    t.same(results.filter((r) => r.status !== 200 || r.body !== 'v1 one'), [], `0 failed requests of ${results.length}: v1 answered all of them`);
    const left = await docker.listContainers({ all: true, filters: { label: [`slipway.deployment=${failed.id}`] } });
    t.same(left, [], 'no container of the failed deployment is left');
  });

  await t.test('a passing one switches; a rollback does not run it unless releaseCommandOnRollback', async (t) => {
    await setVariable('FAIL', 'no');
    const second = (await deploy(s, svc.id)).done;
    t.equal(outcome(second), 'succeeded');
    t.ok((await logLines(s, second.id)).includes('migrating v2 with two'), 'it ran with the new variables');
    await eventually(answer, (a) => a === 'v2 two', 20_000);

    const rolled = await s.call('POST', `/api/services/${svc.id}/rollback`, { body: {} });
    t.equal(rolled.status, 200, JSON.stringify(rolled.body));
    const back = await waitForDeployment(s, svc.id, rolled.body.deployment.id);
    t.equal(outcome(back), 'succeeded');
    log = await logLines(s, back.id);
    t.notOk(log.some((l) => l.startsWith('migrating') || l.includes('release command')), 'a rollback does not run it');

    const patched = await s.call('PATCH', `/api/services/${svc.id}`, { body: { releaseCommandOnRollback: true, releaseCommand: ['sh', '-c', 'echo "rollback migration with $GREETING"'] } });
    t.equal(patched.status, 200, JSON.stringify(patched.body));
    t.match(patched.body.service, { releaseCommand: ['sh', '-c', 'echo "rollback migration with $GREETING"'], releaseCommandOnRollback: true });
    const again = await s.call('POST', `/api/services/${svc.id}/rollback`, { body: {} });
    const forward = await waitForDeployment(s, svc.id, again.body.deployment.id);
    t.equal(outcome(forward), 'succeeded');
    t.ok((await logLines(s, forward.id)).some((l) => l.startsWith('rollback migration with')), 'with releaseCommandOnRollback, a rollback runs it');

    const restarted = await s.call('POST', `/api/services/${svc.id}/restart`);
    const restart = await waitForDeployment(s, svc.id, restarted.body.deployment.id);
    t.equal(outcome(restart), 'succeeded');
    t.notOk((await logLines(s, restart.id)).some((l) => l.includes('release command')), 'a restart never runs it');

    const cleared = await s.call('PATCH', `/api/services/${svc.id}`, { body: { releaseCommand: null } });
    t.match(cleared.body.service, { releaseCommand: null });
    t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { releaseCommand: '' } })).status, 400, 'an empty command is 400');
  });
});
