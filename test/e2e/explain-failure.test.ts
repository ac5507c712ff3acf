import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { memoryHungryApp } from '../helpers/apps.js';
import { deployEnv, waitForDeployment } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { openAiCompletion, startFakeOpenAi } from '../helpers/fake-ai-servers.js';
import { destinationOf } from '../helpers/outbound.js';
import { startGitServer } from '../helpers/git-server.js';
import { startTestServer } from '../helpers/test-server.js';

const LEAKED_AFTER = 'later-password-4711';
const SECRET_AT_BUILD = 'build-secret-token-0042';

const REPOS: Record<string, Record<string, string>> = {
  'acme/no-dockerfile': { 'app.py': 'print("hi")\n' },
  'acme/no-start': { 'package.json': JSON.stringify({ name: 'n', version: '1.0.0', scripts: { build: 'echo built' } }) },
  // A local dependency the lockfile lacks: npm ci refuses before it fetches anything.
  'acme/lockfile': {
    'package.json': JSON.stringify({ name: 'l', version: '1.0.0', scripts: { start: 'node server.js' }, dependencies: { lib: 'file:./lib' } }),
    'package-lock.json': JSON.stringify({ name: 'l', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'l', version: '1.0.0' } } }),
    'lib/package.json': JSON.stringify({ name: 'lib', version: '1.0.0' }),
    'server.js': "require('http').createServer((q, r) => r.end('x')).listen(process.env.PORT);\n",
  },
  'acme/wrong-port': {
    Dockerfile: `FROM ${TEST_IMAGES.python}\nCMD ["python3", "-c", "import http.server as h; print('listening on port 9999', flush=True); h.HTTPServer(('0.0.0.0', 9999), h.SimpleHTTPRequestHandler).serve_forever()"]\n`,
  },
  // The build prints a value that is a variable now (redacted in the log) and one that becomes a variable later.
  'acme/leaky': { Dockerfile: `FROM ${TEST_IMAGES.python}\nRUN echo "using ${SECRET_AT_BUILD} and ${LEAKED_AFTER}" && echo "fatal: cannot reach the build cache" && exit 3\n` },
  // Up, but every request fails inside the app, which prints the traceback.
  'acme/health-500': pythonApp(`import http.server, os, traceback
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        try:
            raise RuntimeError("the cache directory /data/cache is not writable")
        except RuntimeError:
            traceback.print_exc()
        self.send_response(500); self.send_header("content-length", "0"); self.end_headers()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`),
  // An early complaint it gets over, then its own reason to stop.
  'acme/exit-3': pythonApp(`import sys, time
print("warning: connection refused by queue:5672, retrying", flush=True)
time.sleep(0.5)
print("connected to queue:5672", flush=True)
print('fatal: plugin "billing" has no configuration', flush=True)
print("exiting with code 3", flush=True)
sys.exit(3)
`),
  'acme/hungry': memoryHungryApp(200),
  'acme/key-error': pythonApp(`import os, time
print("starting the api", flush=True)
time.sleep(0.5)
database = os.environ["DATABASE_URL"]
`),
};

/** A Python app of one file, run unbuffered as its Dockerfile says. */
function pythonApp(source: string): Record<string, string> {
  return { Dockerfile: `FROM ${TEST_IMAGES.python}\nWORKDIR /app\nCOPY main.py .\nCMD ["python3", "-u", "main.py"]\n`, 'main.py': source };
}

t.test('explain-failure on real failed deployments', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  for (const [name, files] of Object.entries(REPOS)) git.push(name, files);
  // Short, so the app on the wrong port fails soon; not so short that creating six containers at once on a
  // busy machine runs into it (it bounds that step too).
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_DEPLOY_CONCURRENCY: '6', SLIPWAY_START_TIMEOUT: '12' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Explained');
  t.teardown(() => removeProjectLeftovers(p.id));
  const source = (name: string, repo: string, extra: Record<string, unknown> = {}) =>
    createService(s, p.id, { name, repoFullName: repo, branch: 'main', internalPort: 8080, ...extra });
  const image = (name: string, dockerImage: string, extra: Record<string, unknown> = {}) =>
    createService(s, p.id, { name, repoUrl: 'docker-image', dockerImage, branch: 'main', runtimeMode: 'web', internalPort: 8000, ...extra });

  const services = {
    missingDockerfile: await source('missing', 'acme/no-dockerfile', { buildMethod: 'dockerfile' }),
    noStart: await source('nostart', 'acme/no-start'),
    lockfile: await source('lockfile', 'acme/lockfile'),
    wrongPort: await source('wrongport', 'acme/wrong-port'),
    unpullable: await image('unpullable', 'nginx:1.27'),
    unresolved: await image('unresolved', TEST_IMAGES.web, { env: [{ key: 'DATABASE_URL', value: '${postgres.DATABASE_URL}' }] }),
    gitHost: await createService(s, p.id, { name: 'githost', repoUrl: 'http://git.no-such-host.invalid/acme/app.git', branch: 'main', internalPort: 8080 }),
    leaky: await source('leaky', 'acme/leaky', { env: [{ key: 'API_TOKEN', value: SECRET_AT_BUILD }] }),
    health500: await source('health500', 'acme/health-500', { healthCheck: { type: 'http', path: '/health', intervalSeconds: 1, timeoutSeconds: 2, retries: 1 } }),
    exit3: await source('exit3', 'acme/exit-3'),
    hungry: await source('hungry', 'acme/hungry', { resources: { memory: '64m' } }),
    keyError: await source('keyerror', 'acme/key-error', { env: [{ key: 'SECRET_KEY', value: 'not-the-database' }] }),
  };
  const names = Object.keys(services) as (keyof typeof services)[];
  const queued = await Promise.all(names.map(async (n) => (await s.call('POST', `/api/services/${services[n].id}/deployments`)).body.deployment.id as string));
  const done = Object.fromEntries(await Promise.all(names.map(async (n, i) => [n, await waitForDeployment(s, services[n].id, queued[i]!, 180_000)] as const)));
  for (const n of names) t.equal(done[n]!.status, 'failed', `${n} failed`, { reason: done[n]!.reason });

  const explain = (deploymentId: string, body: Record<string, unknown>, query = '') =>
    s.call('POST', `/api/deployments/${deploymentId}/explain-failure${query}`, { body });

  await t.test('builtin names each failure precisely', async (t) => {
    const expected: [keyof typeof services, RegExp][] = [
      ['missingDockerfile', /Dockerfile/],
      ['noStart', /start/i],
      ['lockfile', /package-lock\.json is out of sync/],
      ['wrongPort', /listens on port 9999, not 8080/],
      ['unpullable', /nginx:1\.27/],
      ['unresolved', /postgres\.DATABASE_URL/],
      ['gitHost', /git\.no-such-host\.invalid/],
    ];
    for (const [name, pattern] of expected) {
      const started = performance.now();
      const r = await explain(done[name]!.id, { providerId: 'builtin', model: '' });
      t.equal(r.status, 200, name);
      t.match(r.body.explanation, { summary: String, likelyCause: String, suggestedFix: String, commands: Array });
      t.match(`${r.body.explanation.summary} ${r.body.explanation.likelyCause}`, pattern, `${name}: ${r.body.explanation.summary}`);
      t.comment(`builtin ${name}: ${(performance.now() - started).toFixed(1)} ms`);
    }
  });

  await t.test('builtin explains what the app itself did, from its own output', async (t) => {
    const builtin = async (name: keyof typeof services) => {
      const r = await explain(done[name]!.id, { providerId: 'builtin', model: '' });
      t.equal(r.status, 200, name);
      const e = r.body.explanation as { summary: string; likelyCause: string; suggestedFix: string; commands: string[] };
      t.notMatch(`${e.summary} ${e.likelyCause}`, /"(Health check|Started container|Checked out commit)/, `${name}: no line of Slipway's own is quoted`);
      t.comment(`${name}: ${done[name]!.reason} → ${e.summary}`);
      return e;
    };

    const health = await builtin('health500');
    t.match(health.summary, /answered HTTP 500 on \/health/);
    t.match(health.likelyCause, /"RuntimeError: the cache directory \/data\/cache is not writable"/, 'the exception the app printed');
    t.ok(health.commands.includes('curl -i http://127.0.0.1:8080/health'));

    const exit3 = await builtin('exit3');
    t.match(exit3.summary, /exited with code 3 while starting, after logging "fatal: plugin "billing" has no configuration"/);
    t.match(exit3.likelyCause, /"exiting with code 3"/, 'its last lines');
    t.notMatch(`${exit3.summary} ${exit3.likelyCause}`, /connection refused/, 'not the complaint it got over');

    const hungry = await builtin('hungry');
    t.match(done.hungry!.reason, /out of memory \(limit 64m\)/);
    t.match(hungry.summary, /limit of 64m/);
    t.match(hungry.suggestedFix, /resources\.memory/);
    t.ok(hungry.commands.some((c) => c.includes('{"resources":{"memory":"128m"}}')), 'a PATCH raising the limit');

    const keyError = await builtin('keyError');
    t.match(keyError.summary, /needs the variable DATABASE_URL, which the service does not set/);
    t.match(keyError.likelyCause, /"KeyError: 'DATABASE_URL'"/);
    t.equal(keyError.commands[0], `slipway variables "$SERVICE_ID" set 'DATABASE_URL=<value>'`);
  });

  await t.test('the explanation is stored as an event and shown again unless refresh=true', async (t) => {
    const id = done.missingDockerfile!.id;
    const first = await explain(id, { providerId: 'builtin', model: '' });
    const again = await explain(id, { providerId: 'builtin', model: '' });
    t.same(again.body.explanation, first.body.explanation);
    t.equal(again.body.stored, true);
    const events = (await s.app.store.readStream(`deployment-${id}`)).filter((e) => e.type === 'DeploymentFailureExplained');
    const refreshed = await explain(id, { providerId: 'builtin', model: '' }, '?refresh=true');
    t.equal(refreshed.body.stored, false);
    t.equal((await s.app.store.readStream(`deployment-${id}`)).filter((e) => e.type === 'DeploymentFailureExplained').length, events.length + 1, 'a refresh records a new one');
  });

  await t.test('an OpenAI-compatible provider gets the redacted log, the build settings and variable names only', async (t) => {
    const ai = await startFakeOpenAi();
    // The fake provider listens on loopback: the operator allows it (and the Git server, allowed from the start).
    t.equal((await s.call('PATCH', '/api/settings', { body: { allowedDestinations: [git.baseUrl, ai.origin].map(destinationOf) } })).status, 200);
    t.teardown(() => ai.close());
    t.equal((await explain(done.leaky!.id, { providerId: 'openai', model: 'gpt-test' })).status, 409, 'not connected yet: 409');
    const connected = await s.call('PUT', '/api/settings/ai-providers/openai', { body: { baseUrl: `${ai.origin}/v1`, apiKey: 'sk-test-key-123456', defaultModel: 'gpt-test' } });
    t.equal(connected.status, 200, JSON.stringify(connected.body));
    // A variable added after the run whose value the log holds in clear: redacted again on the way out.
    await s.call('POST', `/api/services/${services.leaky.id}/env`, { body: { key: 'DB_PASSWORD', value: LEAKED_AFTER } });
    const answer = { summary: 'The build step exits 3.', likelyCause: 'The RUN step ends with exit 3.', suggestedFix: 'Remove the exit.', commands: ['git commit -am fix'] };
    ai.queue(openAiCompletion('not json at all'), openAiCompletion(JSON.stringify(answer)));
    const r = await explain(done.leaky!.id, { providerId: 'openai', model: 'llama3.1:8b' });
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.same(r.body.explanation, answer);
    const calls = ai.requests.filter((q) => q.path === '/v1/chat/completions');
    t.equal(calls.length, 2, 'a malformed answer is retried once');
    const sent = calls[0]!;
    t.equal(sent.headers.authorization, 'Bearer sk-test-key-123456');
    t.match(sent.json, { model: 'llama3.1:8b' });
    t.match(sent.raw, 'fatal: cannot reach the build cache', 'the log lines');
    t.match(sent.raw, 'API_TOKEN', 'variable names');
    t.match(sent.raw, 'DB_PASSWORD');
    t.match(sent.raw, '[redacted]');
    t.notMatch(sent.raw, SECRET_AT_BUILD, 'no value redacted in the log');
    t.notMatch(sent.raw, LEAKED_AFTER, 'no value of a variable set since');
    t.notMatch(sent.raw, 'sk-test-key', 'nor the key itself');

    ai.queue(openAiCompletion('still not json'), openAiCompletion('{"summary": 1}'));
    const bad = await explain(done.leaky!.id, { providerId: 'openai', model: 'gpt-test' }, '?refresh=true');
    t.equal(bad.status, 502);
    t.match(bad.body, { error: { code: 'ai_answer_invalid', message: /valid explanation/ } });
    const kept = await explain(done.leaky!.id, { providerId: 'openai', model: 'gpt-test' });
    t.same(kept.body.explanation, answer, 'a failed refresh keeps the stored explanation');
  });

  await t.test('refusals: a deployment that did not fail, an unknown provider, a read key', async (t) => {
    const ok = await image('fine', TEST_IMAGES.web);
    const id = (await s.call('POST', `/api/services/${ok.id}/deployments`)).body.deployment.id as string;
    t.equal((await waitForDeployment(s, ok.id, id)).status, 'succeeded');
    const r = await explain(id, { providerId: 'builtin', model: '' });
    t.equal(r.status, 409);
    t.match(r.body, { error: { code: 'conflict', message: /only a failed or rolled back deployment/ } });
    t.equal((await explain(done.lockfile!.id, { providerId: 'gemini', model: 'x' })).status, 400);
    t.equal((await explain(done.lockfile!.id, { providerId: 'anthropic', model: 'claude' })).status, 409, 'anthropic is not connected');
    t.equal((await explain('00000000-0000-4000-8000-000000000000', { providerId: 'builtin', model: '' })).status, 404);
  });
});
