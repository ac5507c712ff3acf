import t from 'tap';
import { requireCaddy } from '../helpers/caddy.js';
import { versionedApp } from '../helpers/apps.js';
import { deploy, deployEnv, logLines, outcome, probe, waitForDeployment } from '../helpers/deploy.js';
import { requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { createService } from '../helpers/http-resources.js';
import { waitFor } from '../helpers/net.js';
import { answerOf, installation } from '../helpers/slipway-process.js';

t.setTimeout(600_000);

/** Serves `version`; a request to /die is answered, then the process exits with code 3 (a release that dies when told). */
const dyingApp = (version: string) => ({
  Dockerfile: `FROM ${TEST_IMAGES.python}\nWORKDIR /app\nCOPY server.py .\nCMD ["python3", "-u", "server.py"]\n`,
  'server.py': `import http.server, os, threading
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"${version}"
        self.send_response(200); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
        if self.path == "/die":
            print("${version}: told to die", flush=True)
            threading.Timer(0.2, lambda: os._exit(3)).start()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`,
});

t.test('a restart inside the watch window resumes the watch: a release that dies after the restart is rolled back', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl });
  const slipway = installation(t, env);
  let s = await slipway.start();
  const projectId = await slipway.createProject('Watch restart');
  const svc = await createService(s, projectId, { name: 'watched', repoFullName: 'acme/watched', branch: 'main', internalPort: 8080 });
  // A window far longer than a restart takes here: the test ends when the rollback does.
  t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { watchSeconds: 600 } })).status, 200);
  git.push('acme/watched', versionedApp('v1'));
  t.equal(outcome((await deploy(s, svc.id)).done), 'succeeded', 'v1 live');
  git.push('acme/watched', dyingApp('v2'));
  const { done: v2 } = await deploy(s, svc.id);
  t.equal(outcome(v2), 'succeeded', 'v2 live, its watch running');
  t.same(await answerOf(svc.hostPort, 'localhost', { status: 200, body: 'v2' }), { status: 200, body: 'v2' });

  await slipway.crash();
  s = await slipway.start();
  // After the restart, the release dies (the watch sees the exit, or Docker's restart of it).
  t.equal((await probe(svc.hostPort, 'localhost')).status, 200, 'v2 still serves');
  await fetch(`http://localhost:${svc.hostPort}/die`).catch(() => undefined);

  const list = await waitFor(
    'v2 to be rolled back',
    async () => (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments as Record<string, any>[],
    (l) => l.find((d) => d.id === v2.id)?.status === 'rolled_back',
    120_000,
  );
  t.match(list.find((d) => d.id === v2.id)?.reason, /exited with code 3/, 'the reason names the exit code');
  t.ok((await logLines(s, v2.id)).some((l) => /Slipway restarted within the release's watch window; watching it until/.test(l)), 'its log says the watch was resumed');
  const auto = list.find((d) => d.kind === 'rollback' && d.trigger === 'auto');
  t.ok(auto, 'a rollback started by Slipway');
  t.equal(outcome(await waitForDeployment(s, svc.id, auto!.id)), 'succeeded');
  t.same(await answerOf(svc.hostPort, 'localhost', { status: 200, body: 'v1' }), { status: 200, body: 'v1' }, 'v1 answers again');
});
