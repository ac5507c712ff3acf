import t, { type Test } from 'tap';
import { explainWithRules } from '../../src/integrations/ai/builtin.js';
import { failureExplanationSchema, type FailureContext, type FailureExplanation } from '../../src/integrations/ai/explanation.js';
import { BROKEN_ANSWERS } from '../../src/processes/deployment/runs/readiness.js';
import { exitDescription, outOfMemory } from '../../commands/service/resources.js';
import { DEPLOYMENT, failureContextOf, REPO, type ServiceSettings } from '../helpers/failure-context.js';

// The runtime failures an app causes itself: the reasons are Slipway's own wording (readiness.ts, release-watch.ts,
// commands/service/resources.ts), the app lines what real apps print.

const SHA = '3f2a9c1d0b8e7f6a5d4c3b2a1f0e9d8c7b6a5f4e';

const cloned = [`Deployment ${DEPLOYMENT} started`, `Cloning ${REPO} (branch main, depth 1)`, "Cloning into '/var/lib/slipway/builds/01936f6e/src'...", `Checked out commit ${SHA}`];
const pushed = [`Deployment ${DEPLOYMENT} started`, `Checking out pushed commit ${SHA}`, `Checked out commit ${SHA}`];
const dockerfileBuild = [
  'Building with Dockerfile (build method auto); custom install, build and start commands do not apply',
  'Step 1/4 : FROM python:3.12-slim',
  'Step 4/4 : CMD ["python3", "-u", "app.py"]',
  `Built image slipway/shop-${DEPLOYMENT}:1`,
];
const packbuilderBuild = [
  'packbuilder: Python app, dependencies from requirements.txt',
  '  FROM slipway/runtime-python:bookworm',
  '  WORKDIR /app',
  '  RUN python3 -m venv /venv',
  '  COPY . .',
  '  RUN pip install --no-cache-dir -r requirements.txt',
  '  ENV PORT=8080',
  '  CMD ["/bin/sh","-c","exec python app.py"]',
  `Built image slipway/shop-${DEPLOYMENT}:1`,
];
const started = `Started container slipway-shop-${DEPLOYMENT}; waiting for it to answer on port 8080`;
const probes = (n: number, detail = 'HTTP 500 from /health (expected 200-399)') => Array.from({ length: n }, (_, i) => `Health check ${i + 1}/${BROKEN_ANSWERS}: ${detail}`);

const contextOf = (reason: string, lines: string[], service: Partial<ServiceSettings> = {}, variableNames: string[] = [], detectedBuildMethod: string | null = null) =>
  failureContextOf(reason, lines, { service, variableNames, detectedBuildMethod });

function explain(t: Test, context: FailureContext, rule: string): FailureExplanation {
  const { rule: matched, explanation } = explainWithRules(context);
  t.equal(matched, rule, `rule ${rule}`);
  t.ok(failureExplanationSchema.safeParse(explanation).success, 'the explanation fits the schema');
  return explanation;
}

const text = (e: FailureExplanation) => `${e.summary} ${e.likelyCause} ${e.suggestedFix}`;
/** No explanation quotes Slipway's own probe or start lines as the app's. */
function quotesNoOwnLine(t: Test, e: FailureExplanation) {
  t.notMatch(text(e), /"Health check|"Started container|"Checked out commit|"Deployment failed/, 'no line of Slipway\'s own is quoted');
}

const gateReason = (status: number, path: string) =>
  `the app answered HTTP ${status} on ${path} to ${BROKEN_ANSWERS} health checks in a row: it is up but failing; its own log lines above say why`;
const traceback = [
  ' * Serving Flask app "app"',
  ' * Running on http://0.0.0.0:8080',
  'Traceback (most recent call last):',
  '  File "/app/app.py", line 14, in health',
  '    rows = db.execute("select 1")',
  'psycopg.OperationalError: connection to server at "db" (172.18.0.4), port 5432 failed: Connection refused',
  '172.18.0.1 - - [28/Nov/2026 15:20:01] "GET /health HTTP/1.1" 500 -',
];

t.test('a health check that only ever saw HTTP 5xx', async (t) => {
  const lines = [...cloned, ...dockerfileBuild, started, ...traceback.slice(0, 2), ...probes(1), ...traceback.slice(2), ...probes(BROKEN_ANSWERS).slice(1)];
  const e = explain(t, contextOf(gateReason(500, '/health'), lines), 'health-check-http-status');
  t.match(e.summary, /answered HTTP 500 on \/health to 10 health checks in a row/);
  t.match(e.likelyCause, /"psycopg\.OperationalError: connection to server at "db"/, 'the app\'s own error line');
  t.match(e.likelyCause, /File "\/app\/app\.py", line 14, in health/, 'and the frame before it');
  quotesNoOwnLine(t, e);
  t.ok(e.commands.includes('curl -i http://127.0.0.1:8080/health'), 'a request to the same path');
  t.ok(e.commands.includes('docker build -t slipway-check .'), 'a Dockerfile app is built with Docker');
  t.ok(e.commands.some((c) => c.startsWith(`git clone --depth 1 --branch main ${REPO}`)));

  // A short start timeout ends the gate before ten answers: the last probe is in the reason.
  const timedOut = explain(
    t,
    contextOf('the http health check did not pass 3 times in a row within 12 s; last probe: HTTP 503 from /ready (expected 200-399)', [...pushed, ...packbuilderBuild, started, 'Traceback (most recent call last):', '  File "/app/app.py", line 3, in ready', 'RuntimeError: cache not warmed', ...probes(4, 'HTTP 503 from /ready (expected 200-399)')], { repoUrl: 'push' }, [], 'packbuilder'),
    'health-check-http-status',
  );
  t.match(timedOut.summary, /HTTP 503 on \/ready/);
  t.match(timedOut.likelyCause, /"RuntimeError: cache not warmed"/);
  quotesNoOwnLine(t, timedOut);
  t.notOk(timedOut.commands.some((c) => /docker build|git clone/.test(c)), 'no docker build for a packbuilder app, no clone of a pushed one');
  t.ok(timedOut.commands.includes(`git worktree add ../slipway-check ${SHA}`), 'the pushed commit, from the log');
  t.ok(timedOut.commands.includes('pip install --no-cache-dir -r requirements.txt'));
  t.ok(timedOut.commands.includes('PORT=8080 python app.py'), "the packbuilder's start command");
  t.notOk(timedOut.commands.some((c) => c.includes('/venv')), 'nothing that writes outside the checkout');

  const silent = explain(t, contextOf(gateReason(502, '/'), [...cloned, ...dockerfileBuild, started, ...probes(BROKEN_ANSWERS, 'HTTP 502 from / (expected 100-499)')]), 'health-check-http-status');
  t.match(silent.likelyCause, /printed nothing about the failure/);

  const missingRoute = explain(t, contextOf('the http health check did not pass within 12 s; last probe: HTTP 404 from /healthz (expected 200-399)', [started, '172.18.0.1 - "GET /healthz HTTP/1.1" 404']), 'health-check-http-status');
  t.match(missingRoute.likelyCause, /no route \/healthz/);

  const live = explain(t, contextOf('within 30 s of going live, its http health check failed 3 times in a row (HTTP 500 from /health (expected 200-399)) — rolled back to release v4', [started, 'Error: pool exhausted']), 'health-check-http-status');
  t.match(live.summary, /HTTP 500 on \/health 3 times in a row within 30 s of going live/);
});

t.test('a container that exits with its own code', async (t) => {
  const reason = `the container ${exitDescription({ exitCode: 3 }, '512m')} before it was ready; see the log above`;
  t.equal(reason, 'the container exited with code 3 before it was ready; see the log above');
  const lines = [
    ...cloned,
    ...dockerfileBuild,
    started,
    'connecting to redis at redis:6379',
    'Error: connect ECONNREFUSED 172.18.0.5:6379',
    'Health check: connection refused on port 8080',
    'retrying in 1 s',
    'connected to redis',
    'loading the catalog from /data/catalog.json',
    'fatal: the catalog is empty, refusing to start',
    'shutting down (exit 3)',
  ];
  const e = explain(t, contextOf(reason, lines), 'crashed-on-start');
  t.match(e.summary, /exited with code 3 while starting, after logging "fatal: the catalog is empty, refusing to start"/);
  t.match(e.likelyCause, /Exit code 3/);
  t.match(e.likelyCause, /"shutting down \(exit 3\)"/, 'its last lines');
  t.notMatch(text(e), /ECONNREFUSED/, 'not the early complaint it got over');
  quotesNoOwnLine(t, e);

  const live = explain(
    t,
    contextOf('within 30 s of going live, its container exited with code 3; its last output:\nstarting the worker pool\nError: lost the connection to the queue\nexiting — rolled back to release v4', [...pushed, ...dockerfileBuild, started, 'starting the worker pool'], { repoUrl: 'push' }),
    'crashed-on-start',
  );
  t.match(live.summary, /exited with code 3 within 30 s of going live, after logging "Error: lost the connection to the queue"/);
  t.match(live.likelyCause, /"exiting"/);
  t.notOk(live.commands.some((c) => c.startsWith('git clone')), 'a pushed service has no upstream to clone');
  t.ok(live.commands.includes(`git worktree add ../slipway-check ${SHA}`));

  const image = explain(t, contextOf(reason, [started, 'booting', 'Error: config.yml not found'], { kind: 'image', repoUrl: 'docker-image', dockerImage: 'ghcr.io/acme/api:3' }), 'crashed-on-start');
  t.same(image.commands, ['docker run --rm -e PORT=8080 -p 8080:8080 ghcr.io/acme/api:3'], 'an image service: its image, no clone');

  const notAVariable = explain(t, contextOf('the container exited with code 1 before it was ready; see the log above', [started, '/app/server.js:3', 'ReferenceError: app is not defined']), 'crashed-on-start');
  t.match(notAVariable.summary, /ReferenceError: app is not defined/, 'a lower-case name is code, not a variable');
});

t.test('a container killed for memory', async (t) => {
  const reason = `the container ${exitDescription({ exitCode: 137, oomKilled: true }, '64m')} before it was ready; see the log above`;
  t.match(reason, outOfMemory('64m'));
  const lines = [...cloned, ...dockerfileBuild, started, 'holding 1 MB', 'holding 17 MB', 'holding 33 MB', 'holding 49 MB'];
  const e = explain(t, contextOf(reason, lines), 'out-of-memory');
  t.match(e.summary, /limit of 64m/);
  t.match(e.likelyCause, /"holding 49 MB"/);
  t.match(e.suggestedFix, /resources\.memory/);
  t.match(e.suggestedFix, /PATCH \/api\/services\/:id/);
  t.ok(e.commands.some((c) => c.includes(`-d '{"resources":{"memory":"128m"}}'`)), 'a PATCH that doubles the limit, quoted for the shell');

  const live = explain(t, contextOf('within 30 s of going live, its container was killed: out of memory (limit 1.5g); its last output:\nindexing 1200000 rows', [started]), 'out-of-memory');
  t.match(live.summary, /limit of 1\.5g/);
  t.ok(live.commands.some((c) => c.includes('"memory":"3g"')));
});

t.test('an app listening on another port', async (t) => {
  const reason = 'the app did not answer HTTP on port 8080 within 12 s; it must listen on 0.0.0.0:$PORT; last probe: connection refused on port 8080';
  const e = explain(t, contextOf(reason, [...cloned, ...dockerfileBuild, started, 'Health check: connection refused on port 8080', 'listening on port 9999']), 'port-not-opened');
  t.match(e.likelyCause, /listens on port 9999, not 8080/);
  t.match(e.likelyCause, /"listening on port 9999"/);
  quotesNoOwnLine(t, e);
  t.ok(e.commands.some((c) => c.includes('"internalPort":9999')));
});

t.test('a variable the app says is missing', async (t) => {
  const crashed = 'the container exited with code 1 before it was ready; see the log above';
  const keyError = [
    ...cloned,
    ...dockerfileBuild,
    started,
    'Traceback (most recent call last):',
    '  File "/app/app.py", line 4, in <module>',
    '    DATABASE_URL = os.environ["DATABASE_URL"]',
    '  File "<frozen os>", line 714, in __getitem__',
    "KeyError: 'DATABASE_URL'",
  ];
  const e = explain(t, contextOf(crashed, keyError, {}, ['SECRET_KEY']), 'missing-variable');
  t.match(e.summary, /needs the variable DATABASE_URL, which the service does not set/);
  t.match(e.likelyCause, /"KeyError: 'DATABASE_URL'"/);
  t.match(e.likelyCause, /SECRET_KEY/);
  t.equal(e.commands[0], `slipway variables "$SERVICE_ID" set 'DATABASE_URL=<value>'`);
  t.ok(e.commands.includes('slipway deploy "$SERVICE_ID"'));
  t.ok(e.commands.some((c) => c.includes(`-d '{"key":"DATABASE_URL","value":"<value>"}'`)), 'and the API form');
  quotesNoOwnLine(t, e);

  const cases: [string, string, string][] = [
    ['ReferenceError: STRIPE_KEY is not defined', 'STRIPE_KEY', crashed],
    ['Error: REDIS_URL is not defined', 'REDIS_URL', crashed],
    ['panic: environment variable SESSION_SECRET is not set', 'SESSION_SECRET', crashed],
    ['Error: missing required env JWT_SECRET', 'JWT_SECRET', crashed],
    ['config error: Missing environment variable: "SMTP_HOST"', 'SMTP_HOST', gateReason(500, '/health')],
    ['ERROR: the API_TOKEN environment variable is not set', 'API_TOKEN', 'the app did not answer HTTP on port 8080 within 12 s; it must listen on 0.0.0.0:$PORT; last probe: connection refused on port 8080'],
  ];
  for (const [line, name, reason] of cases) {
    const c = explain(t, contextOf(reason, [...cloned, started, 'starting', line]), 'missing-variable');
    t.match(c.summary, new RegExp(`variable ${name}\\b`), line);
    t.equal(c.commands[0], `slipway variables "$SERVICE_ID" set '${name}=<value>'`);
  }

  const copes = explain(t, contextOf(crashed, [started, 'warning: PORT not set, using 3000', 'Error: listen EADDRINUSE: address already in use :::3000']), 'crashed-on-start');
  t.match(copes.summary, /EADDRINUSE/, 'a variable the app does without is not the cause');

  const empty = explain(t, contextOf(crashed, [started, 'Error: DATABASE_URL is not set'], {}, ['DATABASE_URL']), 'missing-variable');
  t.match(empty.summary, /although the service sets DATABASE_URL/);
  t.match(empty.likelyCause, /empty/);

  // During the build no container ran: the build rule explains it, saying variables are not given to builds.
  const build = explain(t, contextOf("docker build failed: The command '/bin/sh -c npm run build' returned a non-zero code: 1", ['Step 5/9 : RUN npm run build', 'Error: DATABASE_URL is not set']), 'build-command-failed');
  t.match(build.suggestedFix, /not to the build/);
});

t.test('the most relevant line is the app\'s own, and commands follow how the service is built', async (t) => {
  const reason = 'the container exited with code 2 before it was ready; see the log above';
  const e = explain(t, contextOf(reason, [...pushed, ...packbuilderBuild, started, 'Health check: connection refused on port 8080', 'usage: app.py [-h] --config CONFIG', 'app.py: error: the following arguments are required: --config'], { repoUrl: 'push', rootDir: 'services/api' }), 'crashed-on-start');
  t.match(e.summary, /"app\.py: error: the following arguments are required: --config"/);
  t.same(e.commands, [`git worktree add ../slipway-check ${SHA}`, 'cd ../slipway-check/services/api', 'pip install --no-cache-dir -r requirements.txt', 'PORT=8080 python app.py']);
});
