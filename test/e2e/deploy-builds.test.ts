import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deployEnv, logLines, probe, waitForDeployment } from '../helpers/deploy.js';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { containersOf, requireDocker, imagesOf, removeProjectLeftovers, TEST_IMAGES } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { eventually } from '../helpers/net.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const pyServer = (text: string) => `import http.server, os
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"${text}")
http.server.HTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`;
const nodeServer = (text: string) =>
  `require('http').createServer((q, r) => r.end(${JSON.stringify(text)})).listen(process.env.PORT, '0.0.0.0');\n`;

const REPOS: Record<string, Record<string, string>> = {
  'acme/node': {
    'package.json': JSON.stringify({ name: 'n', version: '1.0.0', scripts: { build: 'node build.js', start: 'node server.js' } }),
    'build.js': "require('fs').writeFileSync('built.txt', 'node built it')\n",
    'server.js': "require('http').createServer((q, r) => r.end(require('fs').readFileSync('built.txt'))).listen(process.env.PORT, '0.0.0.0');\n",
  },
  'acme/python': { 'requirements.txt': '', 'app.py': pyServer('python answers') },
  'acme/go': {
    'go.mod': 'module example.com/hello\n\ngo 1.19\n',
    'main.go': `package main

import (
	"fmt"
	"net/http"
	"os"
)

func main() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "go answers") })
	http.ListenAndServe("0.0.0.0:"+os.Getenv("PORT"), nil)
}
`,
  },
  'acme/static': { 'index.html': '<h1>static answers</h1>\n' },
  'acme/forced-pack': {
    Dockerfile: 'FROM slipway/runtime-python:bookworm\nRUN exit 1\n',
    'package.json': JSON.stringify({ name: 'f', version: '1.0.0' }),
    'index.js': nodeServer('packbuilder ran despite the Dockerfile'),
  },
  'acme/mono': {
    'apps/api/docker/Dockerfile.prod': 'FROM slipway/runtime-python:bookworm\nWORKDIR /app\nCOPY app.py .\nCMD ["python3", "app.py"]\n',
    'apps/api/docker/Other.Dockerfile': 'FROM slipway/runtime-python:bookworm\nWORKDIR /app\nCOPY other.py app.py\nCMD ["python3", "app.py"]\n',
    'apps/api/app.py': pyServer('mono prod'),
    'apps/api/other.py': pyServer('mono other'),
  },
  'acme/no-dockerfile': { 'app.py': pyServer('x') },
  'acme/unknown': { 'README.md': 'nothing to build\n' },
  'acme/silent': { Dockerfile: 'FROM slipway/runtime-python:bookworm\nCMD ["sleep", "300"]\n' },
};

async function deployAll(s: TestServer, ids: string[]) {
  const queued = await Promise.all(ids.map(async (id) => (await s.call('POST', `/api/services/${id}/deployments`)).body.deployment.id as string));
  return Promise.all(ids.map((id, i) => waitForDeployment(s, id, queued[i]!, 300_000)));
}

t.test('build methods, the packbuilder languages, workers and image services', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  for (const [name, files] of Object.entries(REPOS)) git.push(name, files);
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_DEPLOY_CONCURRENCY: '4' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Builds');
  t.teardown(() => removeProjectLeftovers(project.id));
  const source = (name: string, repo: string, extra: Record<string, unknown> = {}) =>
    createService(s, project.id, { name, repoFullName: repo, branch: 'main', internalPort: 8080, ...extra });

  const services = {
    node: await source('node', 'acme/node'),
    // A direct Git URL rather than owner/repo.
    python: await createService(s, project.id, { name: 'python', repoUrl: `${git.baseUrl}/acme/python.git`, branch: 'main', internalPort: 8080 }),
    go: await source('go', 'acme/go'),
    static: await source('static', 'acme/static', { runtimeMode: 'static' }),
    forced: await source('forced', 'acme/forced-pack', { buildMethod: 'packbuilder' }),
    mono: await source('mono', 'acme/mono', { rootDir: 'apps/api', buildMethod: 'dockerfile', dockerfilePath: 'docker/Dockerfile.prod', startCommand: 'exit 1' }),
    override: await source('override', 'acme/mono', {
      rootDir: 'apps/api',
      dockerfilePath: 'docker/Dockerfile.prod',
      env: [{ key: 'PLATFORM_DOCKERFILE_PATH', value: 'docker/Other.Dockerfile' }],
    }),
    missing: await source('missing', 'acme/no-dockerfile', { buildMethod: 'dockerfile' }),
    unknown: await source('unknown', 'acme/unknown'),
    silent: await source('silent', 'acme/silent'),
    image: await createService(s, project.id, {
      name: 'image',
      repoUrl: 'docker-image',
      dockerImage: TEST_IMAGES.web,
      branch: 'main',
      runtimeMode: 'web',
      internalPort: 8000,
      env: [{ key: 'GREETING', value: 'image answers' }],
    }),
    worker: await createService(s, project.id, {
      name: 'worker',
      repoUrl: 'docker-image',
      dockerImage: TEST_IMAGES.web,
      branch: 'main',
      runtimeMode: 'worker',
      internalPort: 8000,
    }),
  };
  const names = Object.keys(services) as (keyof typeof services)[];
  const results = Object.fromEntries((await deployAll(s, names.map((n) => services[n].id))).map((d, i) => [names[i], d]));
  const overview = async (name: keyof typeof services) => (await s.call('GET', `/api/services/${services[name].id}/overview`)).body.service;

  const answers: [keyof typeof services, string, string][] = [
    ['node', 'packbuilder', 'node built it'],
    ['python', 'packbuilder', 'python answers'],
    ['go', 'packbuilder', 'go answers'],
    ['static', 'packbuilder', '<h1>static answers</h1>\n'],
    ['forced', 'packbuilder', 'packbuilder ran despite the Dockerfile'],
    ['mono', 'dockerfile', 'mono prod'],
    ['override', 'dockerfile', 'mono other'],
  ];
  for (const [name, method, body] of answers) {
    const failed = results[name]!.status !== 'succeeded';
    t.equal(results[name]!.status, 'succeeded', `${name}: succeeded`, failed ? { log: (await logLines(s, results[name]!.id)).slice(-15) } : {});
    t.equal((await overview(name)).detectedBuildMethod, method, `${name}: built with ${method}`);
    t.same(await probe(services[name].hostPort), { status: 200, body }, `${name}: answers`);
  }
  t.match((await logLines(s, results.node!.id)).join('\n'), /packbuilder: Node\.js app, package manager npm[\s\S]*RUN node build\.js|RUN npm run build/, 'the generated Dockerfile is in the log');
  t.match((await logLines(s, results.mono!.id)).join('\n'), /custom install, build and start commands do not apply/);

  t.equal(results.missing!.status, 'failed', 'buildMethod dockerfile without a Dockerfile fails');
  t.match((await logLines(s, results.missing!.id)).join('\n'), /buildMethod is "dockerfile" but there is no Dockerfile/);
  t.equal(results.silent!.status, 'failed', 'an app that never answers fails at the start timeout');
  t.match((await logLines(s, results.silent!.id)).join('\n'), /did not answer HTTP on port 8080 within 20 s; it must listen on 0\.0\.0\.0:\$PORT/);
  t.equal(results.unknown!.status, 'failed');
  t.match((await logLines(s, results.unknown!.id)).join('\n'), /could not detect how to build this app/);

  t.match(results.image, { status: 'succeeded', imageTag: TEST_IMAGES.web, buildMethod: 'image' });
  t.same(await probe(services.image.hostPort), { status: 200, body: 'image answers' }, 'the image service answers');
  t.match(await overview('image'), { status: 'active', reachable: true, detectedBuildMethod: null });

  t.equal(results.worker!.status, 'succeeded', 'the worker runs');
  t.match(await overview('worker'), { status: 'active', reachable: false });
  t.equal((await probe(services.worker.hostPort)).status, 0, 'a worker is never routed');

  const deleted = await s.call('DELETE', `/api/projects/${project.id}`);
  t.match(deleted.body, { ok: true, proxy: { ok: true } });
  const left = await eventually(() => containersOf({ [LABEL.project]: project.id }), (list) => list.length === 0, 30_000);
  t.same(left, [], 'deleting the project stopped and removed every container');
  // Images go after the containers that use them.
  const tagged = async () => (await imagesOf({ [LABEL.project]: project.id })).filter((i) => (i.RepoTags ?? []).some((tag) => tag !== '<none>:<none>'));
  t.same(await eventually(tagged, (list) => list.length === 0, 15_000), [], 'and its images');
  t.equal((await probe(services.node.hostPort)).status, 0, 'nothing answers on its ports any more');
});
