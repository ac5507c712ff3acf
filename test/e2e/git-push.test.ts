import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { cliArgs } from '../helpers/cli-process.js';
import { deployEnv, logLines, probe, waitForDeployment } from '../helpers/deploy.js';
import { requireDocker, removeProjectLeftovers } from '../helpers/docker.js';
import { commit, git, gitEnv, push, refOf, remoteLines } from '../helpers/git-push.js';
import { startGitServer } from '../helpers/git-server.js';
import { startTestServer } from '../helpers/test-server.js';

const app = (version: string, build = '') => ({
  Dockerfile: `FROM slipway/runtime-python:bookworm\nWORKDIR /app\nCOPY . .\nRUN echo "building ${version} from the push"${build}\nCMD ["python3", "-u", "server.py"]\n`,
  'server.py': `import http.server, os
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"${version}"
        self.send_response(200); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`,
});

/** `slipway …` as a user runs it, in `cwd`. */
function slipway(cwd: string, env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // The CLI runs in the pushed repository, and git runs it again as credential helper there.
    const child = spawn(process.execPath, [...cliArgs, ...args], { cwd, env: { ...process.env, ...gitEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

t.test('git push to Slipway deploys the pushed commit inside the push', { skip: await requireDocker() }, async (t) => {
  const upstream = await startGitServer();
  t.teardown(() => upstream.close());
  upstream.push('acme/pushed', { 'README.md': 'the upstream, never built by a push\n' });
  const { env, proxyPort } = await deployEnv({ SLIPWAY_GIT_BASE_URL: upstream.baseUrl });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Pushers');
  t.teardown(() => removeProjectLeftovers(project.id));
  const other = await createProject(s, 'Others');
  const svc = await createService(s, project.id, { name: 'web', repoFullName: 'acme/pushed', branch: 'main', internalPort: 8080 });
  await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: 'pushed.deploy.test' } });
  const writer = await createKey(s, 'write', [project.id]);
  const reader = await createKey(s, 'read', [project.id]);
  const stranger = await createKey(s, 'write', [other.id]);
  const remote = (key: string, path = `${svc.id}.git`) => `${s.url.replace('://', `://anyone:${key}@`)}/git/${path}`;

  const work = mkdtempSync(join(tmpdir(), 'slipway-push-work-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  git(work, 'init', '-q', '-b', 'main');
  const good = commit(work, app('v1'), 'first push');

  await t.test('a push to the service branch streams the build as remote: lines and goes live', async (t) => {
    const pushed = await push(work, remote(writer.secret), 'HEAD:main');
    t.equal(pushed.code, 0, `git push succeeded:\n${pushed.stderr}`);
    const lines = remoteLines(pushed.stderr);
    t.ok(lines.some((l) => l.includes('building v1 from the push')), 'the Dockerfile RUN output arrived as a remote: line');
    t.ok(lines.some((l) => l.startsWith(`Checking out pushed commit ${good}`)), 'the checkout of the pushed commit is shown');
    const deployments = (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments;
    t.equal(deployments.length, 1);
    t.match(deployments[0], { status: 'succeeded', trigger: 'push', commitSha: good });
    t.equal((await probe(proxyPort, 'pushed.deploy.test')).body, 'v1', 'the pushed code answers');
    t.ok(lines.some((l) => l.startsWith(`Deployment succeeded: http://pushed.deploy.test:${proxyPort} (and http://localhost:`)), 'the last line names the domain');
    t.equal(await refOf(remote(writer.secret), 'refs/heads/main'), good, 'the ref moved');
    t.equal(statSync(join(s.dataDir, 'git', `${svc.id}.git`)).mode & 0o777, 0o700, 'the repository is private to Slipway');
  });

  await t.test('a failing build rejects the push, the reason last, and the ref stays', async (t) => {
    const bad = commit(work, app('v2', ' && exit 3'), 'broken build');
    const pushed = await push(work, remote(writer.secret), 'HEAD:main');
    t.not(pushed.code, 0, 'git push failed');
    t.match(pushed.stdout, /^!\tHEAD:refs\/heads\/main\t\[remote rejected\] \(pre-receive hook declined\)$/m, 'git says the hook declined the ref');
    const lines = remoteLines(pushed.stderr);
    t.match(lines.at(-1), /^Deployment [0-9a-f-]+ failed: /, `the reason is the last remote line:\n${pushed.stderr}`);
    t.equal(await refOf(remote(writer.secret), 'refs/heads/main'), good, 'the ref did not move');
    const latest = (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments[0];
    t.match(latest, { status: 'failed', trigger: 'push', commitSha: bad });
    t.ok((await logLines(s, latest.id)).some((l) => l.includes('building v2')), 'the log of the failed build is kept');
    t.equal((await probe(proxyPort, 'pushed.deploy.test')).body, 'v1', 'the release before still answers');
    git(work, 'reset', '-q', '--hard', good);
  });

  await t.test('a push to another branch is stored and deploys nothing', async (t) => {
    const before = (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments.length;
    const feature = commit(work, { 'NOTES.md': 'wip\n' }, 'feature work');
    const pushed = await push(work, remote(writer.secret, `${project.slug}/${svc.slug}.git`), 'HEAD:feature');
    t.equal(pushed.code, 0, `pushed by the slugs' address:\n${pushed.stderr}`);
    t.equal(await refOf(remote(writer.secret), 'refs/heads/feature'), feature, 'the branch is stored');
    t.equal((await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments.length, before, 'no deployment');
    git(work, 'reset', '-q', '--hard', good);
  });

  await t.test('two pushes at once: one deploys; the other is replaced while queued or turned away, and its ref not moved', async (t) => {
    const before = (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments.length;
    git(work, 'checkout', '-q', '-b', 'one', good);
    const one = commit(work, app('v3'), 'one');
    git(work, 'checkout', '-q', '-b', 'two', good);
    const two = commit(work, app('v4'), 'two');
    git(work, 'checkout', '-q', 'main');
    const [a, b] = await Promise.all([push(work, remote(writer.secret), 'one:main'), push(work, remote(writer.secret), 'two:main')]);
    t.same([a.code === 0, b.code === 0].sort(), [false, true], `exactly one push went through:\n${a.stderr}\n---\n${b.stderr}`);
    const [winner, loser, lost] = a.code === 0 ? [one, b, two] : [two, a, one];
    t.match(
      remoteLines(loser.stderr).at(-1),
      /another push to this service is deploying|moved while this push was on its way|canceled: (replaced by a newer push of|superseded by the newer deployment)/,
      'the other is told why',
    );
    t.equal(await refOf(remote(writer.secret), 'refs/heads/main'), winner, 'the ref is the deployed commit');
    const listed = (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments;
    // Newest first: what these two pushes queued.
    const added = listed.slice(0, listed.length - before);
    t.equal(added.filter((d: { status: string }) => d.status === 'succeeded').length, 1, 'one deployment went live…');
    t.match(added.find((d: { status: string }) => d.status === 'succeeded'), { commitSha: winner });
    for (const other of added.filter((d: { status: string }) => d.status !== 'succeeded')) t.match(other, { status: 'canceled', commitSha: lost }, '…the other, if it was queued, was replaced before it ran');
    git(work, 'reset', '-q', '--hard', winner);
  });

  await t.test('through Caddy on the API domain: a push with a 6 MB file deploys, its lines streamed back', async (t) => {
    const domain = 'api.pushers.test';
    t.equal((await s.call('PATCH', '/api/settings', { body: { apiDomain: domain } })).status, 200);
    t.teardown(() => s.call('PATCH', '/api/settings', { body: { apiDomain: null } }));
    const big = commit(work, { ...app('v6'), 'assets/blob.bin': randomBytes(6 * 1024 * 1024).toString('base64') }, 'a large asset');
    const viaDomain = `http://anyone:${writer.secret}@${domain}:${proxyPort}/git/${svc.id}.git`;
    // git resolves the domain to this machine, as DNS would to the server.
    const pushed = await push(work, viaDomain, 'HEAD:main', [`http.curloptResolve=${domain}:${proxyPort}:127.0.0.1`, 'http.postBuffer=1048576']);
    t.equal(pushed.code, 0, `git push through the proxy succeeded:\n${pushed.stderr}`);
    t.ok(remoteLines(pushed.stderr).some((l) => l.includes('building v6 from the push')), 'the build lines came back through Caddy');
    const latest = (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments[0];
    t.match(latest, { status: 'succeeded', trigger: 'push', commitSha: big });
    t.equal((await probe(proxyPort, 'pushed.deploy.test')).body, 'v6', 'the pushed code answers');
    git(work, 'reset', '-q', '--hard', big);
  });

  await t.test('a pusher that goes away mid-build aborts the deployment; the ref stays', async (t) => {
    const tip = await refOf(remote(writer.secret), 'refs/heads/main');
    const slow = commit(work, app('v5', ' && sleep 60'), 'slow build');
    // Its own process group: git leaves the connection to git-remote-http, which must go too, as on Ctrl-C.
    const child = spawn('git', ['push', remote(writer.secret), 'HEAD:main'], { cwd: work, env: gitEnv, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        if (stderr.includes('building v5 from the push')) resolve();
      });
    });
    process.kill(-child.pid!, 'SIGKILL');
    await closed;
    const end = Date.now() + 30_000;
    let latest: Record<string, unknown> | undefined;
    while (Date.now() < end) {
      latest = (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments[0];
      if (latest?.status !== 'running' && latest?.status !== 'queued') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    t.match(latest, { status: 'aborted', commitSha: slow }, 'the deployment was aborted');
    t.equal(await refOf(remote(writer.secret), 'refs/heads/main'), tip, 'the ref did not move');
    git(work, 'reset', '-q', '--hard', tip);
  });

  await t.test('keys: unknown 401, another project 404, read-only 403 to push but may fetch', async (t) => {
    const infoRefs = (key: string | null, service = 'git-receive-pack', path = `${svc.id}.git`) =>
      fetch(`${s.url}/git/${path}/info/refs?service=${service}`, {
        headers: key === null ? {} : { authorization: `Basic ${Buffer.from(`git:${key}`).toString('base64')}` },
      });
    const anonymous = await infoRefs(null);
    t.equal(anonymous.status, 401);
    t.match(anonymous.headers.get('www-authenticate'), /^Basic /, 'git is asked for credentials');
    t.equal((await infoRefs('slw_not-a-key')).status, 401, 'an unknown key');
    t.equal((await infoRefs(stranger.secret)).status, 404, 'a key of another project sees no repository');
    t.equal((await infoRefs(stranger.secret, 'git-receive-pack', `${project.slug}/${svc.slug}.git`)).status, 404, 'not by its slugs either');
    t.equal((await infoRefs(reader.secret)).status, 403, 'a read key cannot push');
    t.equal((await infoRefs(reader.secret, 'git-upload-pack')).status, 200, 'a read key can fetch');
    const refused = await push(work, remote('slw_not-a-key'), 'HEAD:main');
    t.not(refused.code, 0, 'git push with a wrong key fails');
    t.match(refused.stderr, /Authentication failed|401/);
  });

  await t.test('slipway git-remote prints the remote, and --add adds it with the CLI as credential helper', async (t) => {
    const env = { SLIPWAY_URL: s.url, SLIPWAY_KEY: writer.secret, XDG_CONFIG_HOME: work };
    const printed = await slipway(work, env, 'git-remote', `${project.slug}/${svc.slug}`);
    t.equal(printed.code, 0, printed.stderr);
    t.equal(printed.stdout.trim(), `${s.url}/git/${svc.id}.git`);
    const added = await slipway(work, env, 'git-remote', svc.id, '--add');
    t.equal(added.code, 0, added.stderr);
    t.notMatch(readFileSync(join(work, '.git', 'config'), 'utf8'), writer.secret, 'no key in the repository’s configuration');
    const topic = commit(work, { 'TOPIC.md': 'via the helper\n' }, 'topic');
    const pushed = await new Promise<number>((resolve) => {
      // The helper finds the key where the CLI does: the environment here.
      const child = spawn('git', ['push', '-q', 'slipway', 'HEAD:topic'], { cwd: work, env: { ...process.env, ...gitEnv, ...env }, stdio: 'ignore' });
      child.on('close', (code) => resolve(code ?? -1));
    });
    t.equal(pushed, 0, 'git push through the added remote authenticates with the saved key');
    t.equal(await refOf(remote(writer.secret), 'refs/heads/topic'), topic);
  });

  await t.test('a service with no upstream: created for pushes, Deploy redeploys what was last pushed', async (t) => {
    const created = await slipway(work, { SLIPWAY_URL: s.url, SLIPWAY_KEY: writer.secret, XDG_CONFIG_HOME: work }, 'services', 'create', 'solo', '--project', project.slug, '--push', '--port', '8080');
    t.equal(created.code, 0, created.stderr);
    t.match(created.stdout, `slipway git-remote ${project.slug}/solo --add, then git push slipway main`, 'the CLI says how to deploy it');
    const solo = (await s.call('GET', `/api/projects/${project.id}`)).body.project.services.find((x: { slug: string }) => x.slug === 'solo');
    t.match(solo, { repoUrl: 'push', repoFullName: null });
    t.match(await s.call('POST', `/api/projects/${project.id}/services`, { body: { name: 'tokened', repoUrl: 'push', gitToken: 'ghp_x' } }), { status: 400, body: { error: { code: 'validation_failed', details: [{ path: 'gitToken', message: /no upstream to clone/ }] } } }, 'no token: there is nothing to clone');
    const early = await s.call('POST', `/api/services/${solo.id}/deployments`, { key: writer.secret });
    t.equal(early.status, 409, 'nothing pushed yet: nothing to deploy');
    t.match(early.body.error, { code: 'conflict', message: /nothing has been pushed to solo's branch main yet: .*git push slipway main/ });
    t.equal((await s.call('PUT', `/api/services/${solo.id}/auto-deploy`, { body: { enabled: true, provider: 'github' } })).status, 400, 'no upstream, no webhooks');

    const pushedCommit = commit(work, app('solo-v1'), 'solo first');
    const pushed = await push(work, remote(writer.secret, `${solo.id}.git`), 'HEAD:main');
    t.equal(pushed.code, 0, pushed.stderr);
    const byPush = (await s.call('GET', `/api/services/${solo.id}/deployments`)).body.deployments[0];
    t.match(byPush, { status: 'succeeded', trigger: 'push', commitSha: pushedCommit, commitMessage: 'solo first' });

    const again = await s.call('POST', `/api/services/${solo.id}/deployments`, { key: writer.secret });
    t.equal(again.status, 200, JSON.stringify(again.body));
    const done = await waitForDeployment(s, solo.id, again.body.deployment.id);
    t.match(done, { status: 'succeeded', trigger: 'manual', commitSha: pushedCommit }, 'Deploy builds the commit last pushed, with no clone');
    const log = (await logLines(s, done.id)).join('\n');
    t.match(log, `Checking out pushed commit ${pushedCommit}`);
    t.notMatch(log, /Cloning/);
  });

  await t.test('deleting the service deletes what was pushed to it', async (t) => {
    const repository = join(s.dataDir, 'git', `${svc.id}.git`);
    t.ok(existsSync(repository));
    t.equal((await s.call('DELETE', `/api/services/${svc.id}`)).status, 200);
    t.notOk(existsSync(repository), 'the repository is gone with its service');
  });
});
