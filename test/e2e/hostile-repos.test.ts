import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { requireCaddy } from '../helpers/caddy.js';
import { deployEnv, logLines, probe, queueDeployment, waitForDeployment } from '../helpers/deploy.js';
import { requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { startGitServer, type RepoEntry } from '../helpers/git-server.js';
import { createService } from '../helpers/http-resources.js';
import { installation } from '../helpers/slipway-process.js';
import { readSse } from '../helpers/sse.js';

const pyServer = (text: string) => `import http.server, os
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"${text}"
        self.send_response(200); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
http.server.HTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`;
const pyDockerfile = `FROM ${TEST_IMAGES.python}\nWORKDIR /app\nCOPY app.py .\nCMD ["python3", "-u", "app.py"]\n`;

/** Every file below `dir` with its content and modification time: what "nothing outside was touched" compares. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    const stats = statSync(path);
    out[name] = stats.isFile() ? `${stats.mtimeMs} ${readFileSync(path, 'base64')}` : 'directory';
  }
  return out;
}

t.test('a hostile repository never reaches outside its checkout', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  // Outside every checkout: a secret file, a directory with a Dockerfile of its own, and a file a link aims a write at.
  const outside = mkdtempSync(join(tmpdir(), 'slipway-outside-'));
  t.teardown(() => rmSync(outside, { recursive: true, force: true }));
  const secret = `outside-secret-${randomBytes(16).toString('hex')}`;
  const canary = `environ-canary-${randomBytes(16).toString('hex')}`;
  writeFileSync(join(outside, 'secret.txt'), `web: echo ${secret}\n`);
  writeFileSync(join(outside, 'Dockerfile'), `FROM ${TEST_IMAGES.python}\nRUN echo ${secret}\nCOPY . /host\nCMD ["python3", "-m", "http.server", "8080"]\n`);
  writeFileSync(join(outside, 'victim.txt'), 'the victim file, as it was\n');
  writeFileSync(join(outside, 'hard.Dockerfile'), pyDockerfile);
  writeFileSync(join(outside, 'hard-app.py'), pyServer('committed content'));
  const created = join(outside, 'created-by-slipway');

  const git = await startGitServer();
  t.teardown(() => git.close());
  const repos: Record<string, Record<string, RepoEntry>> = {
    'hostile/dockerfile-up': { Dockerfile: { symlink: '../../../master.key' }, 'app.py': pyServer('x') },
    'hostile/dockerfile-abs': { Dockerfile: { symlink: join(outside, 'secret.txt') }, 'app.py': pyServer('x') },
    'hostile/environ': { 'package.json': { symlink: '/proc/self/environ' }, 'index.js': 'console.log(1)\n' },
    'hostile/generated-new': { '.slipway.Dockerfile': { symlink: created }, 'index.html': '<h1>generated new</h1>\n' },
    'hostile/generated-existing': {
      '.slipway.Dockerfile': { symlink: join(outside, 'victim.txt') },
      '.slipway-build.Dockerfile': { symlink: join(outside, 'victim.txt') },
      'index.html': '<h1>generated existing</h1>\n',
    },
    'hostile/root-dir': { app: { symlink: outside }, 'real/index.html': '<h1>real</h1>\n' },
    'hostile/sub-dir': { docker: { symlink: outside }, 'app.py': pyServer('x') },
    'hostile/chain': {
      'requirements.txt': '',
      'main.py': pyServer('x'),
      Procfile: { symlink: 'procfile-1' },
      'procfile-1': { symlink: 'config/procfile-2' },
      'config/procfile-2': { symlink: join(outside, 'secret.txt') },
    },
    'hostile/hard-link': { Dockerfile: { hardLinkTo: join(outside, 'hard.Dockerfile') }, 'app.py': { hardLinkTo: join(outside, 'hard-app.py') } },
    'friendly/inside-link': { Dockerfile: { symlink: 'docker/app.Dockerfile' }, 'docker/app.Dockerfile': pyDockerfile, 'app.py': pyServer('built through a link inside') },
    'friendly/root-link': { current: { symlink: 'releases/v2' }, 'releases/v2/index.html': '<h1>v2 through a linked root</h1>\n' },
  };
  for (const [name, files] of Object.entries(repos)) git.push(name, files);
  // What the hard links held was committed; the files outside change afterwards, and the build must not see it.
  writeFileSync(join(outside, 'hard-app.py'), pyServer('changed after the commit'));
  const before = snapshot(outside);

  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_DEPLOY_CONCURRENCY: '4', SLIPWAY_TEST_ENVIRON_CANARY: canary });
  const slipway = installation(t, env);
  const s = await slipway.start();
  const masterKey = readFileSync(join(slipway.dataDir, 'master.key'), 'utf8').trim();
  const projectId = await slipway.createProject('Hostile repositories');
  const service = (name: string, repo: string, extra: Record<string, unknown> = {}) =>
    createService(s, projectId, { name, repoFullName: repo, branch: 'main', internalPort: 8080, ...extra });

  const cases = {
    'dockerfile-up': { svc: await service('dockerfile-up', 'hostile/dockerfile-up'), reason: 'Dockerfile is a symbolic link that leaves the repository' },
    'dockerfile-abs': { svc: await service('dockerfile-abs', 'hostile/dockerfile-abs'), reason: 'Dockerfile is a symbolic link that leaves the repository' },
    environ: { svc: await service('environ', 'hostile/environ'), reason: 'package.json is a symbolic link that leaves the repository' },
    'root-dir': { svc: await service('root-dir', 'hostile/root-dir', { rootDir: 'app', runtimeMode: 'static' }), reason: 'app is a symbolic link that leaves the repository' },
    'sub-dir': {
      svc: await service('sub-dir', 'hostile/sub-dir', { buildMethod: 'dockerfile', dockerfilePath: 'docker/Dockerfile' }),
      reason: 'docker/Dockerfile leads out of the repository through the symbolic link docker',
    },
    chain: { svc: await service('chain', 'hostile/chain'), reason: 'Procfile leads out of the repository through the symbolic link config/procfile-2' },
  };
  const builds = {
    'generated-new': { svc: await service('generated-new', 'hostile/generated-new', { runtimeMode: 'static' }), answer: '<h1>generated new</h1>\n' },
    'generated-existing': { svc: await service('generated-existing', 'hostile/generated-existing', { runtimeMode: 'static' }), answer: '<h1>generated existing</h1>\n' },
    'hard-link': { svc: await service('hard-link', 'hostile/hard-link'), answer: 'committed content' },
    'inside-link': { svc: await service('inside-link', 'friendly/inside-link'), answer: 'built through a link inside' },
    'root-link': { svc: await service('root-link', 'friendly/root-link', { rootDir: 'current', runtimeMode: 'static' }), answer: '<h1>v2 through a linked root</h1>\n' },
  };
  const all = { ...cases, ...builds };
  const queued = Object.fromEntries(await Promise.all(Object.entries(all).map(async ([name, c]) => [name, (await queueDeployment(s, c.svc.id)).id as string])));
  const done: Record<string, Record<string, any>> = {};
  for (const [name, c] of Object.entries(all)) done[name] = await waitForDeployment(s, c.svc.id, queued[name]!, 300_000);

  for (const [name, c] of Object.entries(cases)) {
    t.match(done[name], { status: 'failed', reason: c.reason }, `${name}: fails with the repository path in the reason`);
    t.match((await logLines(s, queued[name]!)).join('\n'), `Deployment failed: ${c.reason}`, `${name}: and says so in its log`);
  }
  for (const [name, c] of Object.entries(builds)) {
    const log = done[name]!.status === 'succeeded' ? {} : { log: (await logLines(s, queued[name]!)).slice(-15) };
    t.equal(done[name]!.status, 'succeeded', `${name}: builds and deploys`, log);
    t.same(await probe(c.svc.hostPort), { status: 200, body: c.answer }, `${name}: answers what the repository holds`);
  }

  t.notOk(existsSync(created), 'no file was created through a link to a path outside');
  t.same(snapshot(outside), before, 'nothing outside was created, changed or read into a build');

  // The secrets, searched in everything a key holder or an operator can see.
  const key = readFileSync(join(slipway.dataDir, 'bootstrap-key'), 'utf8').trim();
  const answers: unknown[] = [(await s.call('GET', `/api/projects/${projectId}`)).body];
  for (const [name, c] of Object.entries(all)) {
    answers.push(
      (await s.call('GET', `/api/services/${c.svc.id}/deployments`)).body,
      (await s.call('GET', `/api/services/${c.svc.id}/overview`)).body,
      (await s.call('GET', `/api/deployments/${queued[name]}/logs`)).body,
    );
    const sse = await readSse(`${s.url}/api/deployments/${queued[name]}/stream`, key);
    await sse.ended;
    t.ok(sse.events.length > 0, `${name}: the stream of the finished deployment sent its lines`);
    answers.push(sse.events);
  }
  const events = [];
  for (let after = ''; ; ) {
    const page = (await s.call('GET', `/api/events?limit=1000${after ? `&after=${encodeURIComponent(after)}` : ''}`)).body;
    events.push(...page.events);
    if (!page.next) break;
    after = page.next;
  }
  t.ok(events.some((e) => e.type === 'DeploymentFailed'), 'the event history was read');
  const places = { 'API answers': JSON.stringify(answers), 'event history': JSON.stringify(events), 'server log': s.logs() };
  t.match(places['server log'], '"message":"slipway listening"', 'the server log was captured');
  // In any case: the engine's parse error shows a Dockerfile line upper-cased.
  const anyCase = (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'i');
  for (const [where, text] of Object.entries(places)) {
    t.notMatch(text, anyCase(secret), `${where}: nothing of the file outside`);
    t.notMatch(text, anyCase(masterKey), `${where}: not the master key`);
    t.notMatch(text, anyCase(canary), `${where}: nothing of Slipway's environment`);
    t.notMatch(text, anyCase(outside), `${where}: not even the path outside`);
  }
});
