import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { loadConfig } from '../../src/config.js';
import { chooseBuild } from '../../src/build/build-plan.js';
import { detect, type PackInput } from '../../src/build/packbuilder/detect.js';
import { packDockerfile } from '../../src/build/packbuilder/dockerfile.js';
import { builtinExplainer, explainWithRules, FALLBACK_RULE } from '../../src/integrations/ai/builtin.js';
import { BUILTIN_RULES, errorLine } from '../../src/integrations/ai/builtin-rules.js';
import { failureExplanationSchema, type FailureContext, type FailureExplanation } from '../../src/integrations/ai/explanation.js';
import { step } from '../../src/processes/deployment/toolkit/run-step.js';
import { followProgress } from '../../src/runtime/docker-streams.js';
import { unresolvedReferences } from '../../src/variables/references.js';
import { DEPLOYMENT, failureContextOf, REPO, type ServiceSettings } from '../helpers/failure-context.js';

// Every failure below is produced by Slipway's own code where it can be (build plan, packbuilder, step, the engine's
// progress stream), else quoted from src/processes/deployment/ and the e2e tests that saw it happen.

const images = { node: 'slipway/runtime-node:20', python: 'slipway/runtime-python:bookworm', go: 'g', run: 'r', static: 's' };


/** The lines the deployment runs write before the build, and git's own. */
const cloned = (branch = 'main') => [
  `Deployment ${DEPLOYMENT} started`,
  `Cloning ${REPO} (branch ${branch}, depth 1)`,
  "Cloning into '/var/lib/slipway/builds/01936f6e/src'...",
  'Checked out commit 3f2a9c1d0b8e7f6a5d4c3b2a1f0e9d8c7b6a5f4e',
];

const contextOf = (reason: string | null, lines: string[], service: Partial<ServiceSettings> = {}, variableNames: string[] = ['DATABASE_URL']) =>
  failureContextOf(reason, lines, { service, variableNames });

const failed = async (name: string, error: string) =>
  step(name, 10_000, new AbortController().signal, async () => {
    throw new Error(error);
  }).then(
    () => 'did not fail',
    (e: Error) => e.message,
  );

/** A build through the engine's JSON progress stream, as docker-runtime.ts follows it: its log lines and the deployment's reason. */
async function failedBuild(output: string[], engineError: string) {
  const lines: string[] = [];
  const messages = [...output.map((line) => ({ stream: `${line}\n` })), { errorDetail: { message: engineError }, error: engineError }];
  const stream = Readable.from(messages.map((m) => `${JSON.stringify(m)}\n`));
  const reason = await step('docker build', 10_000, new AbortController().signal, () => followProgress(stream, (l) => lines.push(l))).then(
    () => 'did not fail',
    (e: Error) => e.message,
  );
  return { lines, reason };
}

const packInput = (files: Record<string, string>, extra: Partial<PackInput> = {}): PackInput => ({
  files: { has: (n) => n in files, read: (n) => files[n] ?? null },
  installCommand: null,
  buildCommand: null,
  startCommand: null,
  runtimeMode: 'web',
  internalPort: 8080,
  images,
  ...extra,
});

/** The packbuilder lines source-build.ts writes: its notes, then the generated Dockerfile indented. */
function packbuilderLines(files: Record<string, string>) {
  const plan = detect(packInput(files));
  return [...plan.notes.map((n) => `packbuilder: ${n}`), ...packDockerfile(plan, images, 8080).split('\n').map((l) => `  ${l}`)];
}
const nodeApp = { 'package.json': JSON.stringify({ name: 'shop', scripts: { build: 'tsc -p .', start: 'node dist/server.js' } }), 'package-lock.json': '{}' };

/** The message Slipway's own code throws, which runDeployment records as the reason. */
function thrownBy(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a throw');
}

const seen = new Set<string>();
/** Explains, checks the answer fits the schema, and that the expected rule matched. */
function explain(t: Test, context: FailureContext, rule: string): FailureExplanation {
  const { rule: matched, explanation } = explainWithRules(context);
  seen.add(matched);
  t.equal(matched, rule, `rule ${rule}`);
  const parsed = failureExplanationSchema.safeParse(explanation);
  t.ok(parsed.success, 'the explanation fits the schema');
  t.ok(explanation.commands.length <= 10);
  return explanation;
}

t.test('a missing Dockerfile', async (t) => {
  const reason = thrownBy(() => chooseBuild({ buildMethod: 'dockerfile', dockerfilePath: null, dockerfilePathVariable: null }, () => false));
  t.equal(reason, 'buildMethod is "dockerfile" but there is no Dockerfile in the service root directory');
  const e = explain(t, contextOf(reason, cloned(), { buildMethod: 'dockerfile' }), 'missing-dockerfile');
  t.match(e.summary, /buildMethod is "dockerfile" but there is no Dockerfile in the repository root/);
  t.match(e.suggestedFix, /dockerfilePath/);
  t.ok(e.commands.some((c) => c.includes('"buildMethod":"auto"')), 'a command switches to auto');
  t.ok(e.commands.includes(`git clone --depth 1 --branch main ${REPO} app`));

  const nested = explain(
    t,
    contextOf('buildMethod is "dockerfile" but there is no docker/Dockerfile.prod in the service root directory', cloned(), { rootDir: 'apps/api', dockerfilePath: 'docker/Dockerfile.prod' }, ['PLATFORM_DOCKERFILE_PATH']),
    'missing-dockerfile',
  );
  t.match(nested.summary, /no docker\/Dockerfile\.prod in the root directory apps\/api/);
  t.match(nested.likelyCause, /PLATFORM_DOCKERFILE_PATH is set on this service and overrides dockerfilePath/);
  t.ok(nested.commands.includes('cd app/apps/api'));

  const outside = explain(t, contextOf('the Dockerfile path "../Dockerfile" leaves the service root directory', cloned()), 'missing-dockerfile');
  t.match(outside.summary, /"\.\.\/Dockerfile" points outside the service root directory/);
});

t.test('a Node.js app without a start script', async (t) => {
  const reason = `packbuilder: ${thrownBy(() => detect(packInput({ 'package.json': JSON.stringify({ name: 'shop', scripts: { build: 'tsc' } }) })))}`;
  t.equal(reason, 'packbuilder: Node.js app without a start command: add a "start" script to package.json or set startCommand');
  const e = explain(t, contextOf(reason, cloned()), 'missing-start-command');
  t.match(e.summary, /no "start" script/);
  t.match(e.likelyCause, /packbuilder: Node\.js app without a start command/);
  t.match(e.suggestedFix, /PORT \(8080\)/);
  t.ok(e.commands.includes('npm pkg set scripts.start="node server.js"'));

  // A Dockerfile running `npm start` in a package without that script: npm says so and the container exits.
  const started = explain(
    t,
    contextOf('the container exited with code 1 before it was ready; see the log above', [
      ...cloned(),
      'Step 5/5 : CMD ["npm", "start"]',
      `Started container slipway-shop-${DEPLOYMENT}; waiting for it to answer on port 8080`,
      'npm error Missing script: "start"',
      'npm error',
      'npm error Did you mean one of these?',
      'npm error   npm star # Mark your favorite packages',
      'npm error A complete log of this run can be found in: /root/.npm/_logs/2025-01-10T10_00_00_000Z-debug-0.log',
    ]),
    'missing-start-command',
  );
  t.match(started.likelyCause, /"npm error Missing script: \\"start\\""|Missing script: "start"/);

  const pyError = thrownBy(() => detect(packInput({ 'requirements.txt': 'flask\n', 'wsgi.py': '' })));
  t.match(pyError, /^Python app without a start command/);
  const python = explain(t, contextOf(`packbuilder: ${pyError}`, cloned()), 'missing-start-command');
  t.match(python.summary, /Python app/);
  t.match(python.suggestedFix, /Procfile/);
});

t.test('a lockfile out of sync', async (t) => {
  const npm = await failedBuild(
    [
      'Step 1/9 : FROM slipway/runtime-node:20',
      ' ---> 5d1e0c2b9a41',
      'Step 4/9 : RUN npm ci --no-audit --no-fund',
      ' ---> Running in 7d1e0c2b9a41',
      'npm error code EUSAGE',
      'npm error',
      'npm error `npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync. Please update your lock file with `npm install` before continuing.',
      'npm error',
      'npm error Missing: left-pad@1.3.0 from lock file',
      'npm error',
      'npm error Clean install a project',
    ],
    "The command '/bin/sh -c npm ci --no-audit --no-fund' returned a non-zero code: 1",
  );
  t.equal(npm.reason, "docker build failed: The command '/bin/sh -c npm ci --no-audit --no-fund' returned a non-zero code: 1");
  t.ok(npm.lines.includes('npm error Missing: left-pad@1.3.0 from lock file'), 'the engine stream became log lines');
  const e = explain(t, contextOf(npm.reason, [...cloned(), ...packbuilderLines(nodeApp), ...npm.lines]), 'lockfile-mismatch');
  t.match(e.summary, /package-lock\.json is out of sync with package\.json, and npm ci refuses/);
  t.match(e.likelyCause, /Missing: left-pad@1\.3\.0 from lock file/);
  t.same(e.commands.slice(0, 2), ['npm install', 'git add package-lock.json package.json']);

  const yarn = await failedBuild(
    [
      'Step 4/9 : RUN npm install -g yarn@1 && yarn install --frozen-lockfile',
      'yarn install v1.22.22',
      '[1/4] Resolving packages...',
      'error Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`.',
      'info Visit https://yarnpkg.com/en/docs/cli/install for documentation about this command.',
    ],
    "The command '/bin/sh -c npm install -g yarn@1 && yarn install --frozen-lockfile' returned a non-zero code: 1",
  );
  const y = explain(t, contextOf(yarn.reason, yarn.lines), 'lockfile-mismatch');
  t.match(y.summary, /yarn\.lock is out of sync/);
  t.equal(y.commands[0], 'yarn install');

  const pnpm = await failedBuild(
    [
      'Step 4/9 : RUN npm install -g pnpm@9 && pnpm install --frozen-lockfile',
      ' ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date with <ROOT>/package.json',
      'Note that in CI environments this setting is true by default.',
    ],
    "The command '/bin/sh -c npm install -g pnpm@9 && pnpm install --frozen-lockfile' returned a non-zero code: 1",
  );
  const p = explain(t, contextOf(pnpm.reason, pnpm.lines), 'lockfile-mismatch');
  t.match(p.summary, /pnpm-lock\.yaml is out of sync/);
  t.match(p.suggestedFix, /pnpm 9/);
});

t.test('a port the app never opened', async (t) => {
  const reason = 'the app did not answer HTTP on port 8080 within 20 s; it must listen on 0.0.0.0:$PORT';
  const startedLine = `Started container slipway-shop-${DEPLOYMENT}; waiting for it to answer on port 8080`;
  const other = explain(t, contextOf(reason, [...cloned(), startedLine, '> shop@1.0.0 start', '> node server.js', 'Server listening on port 3000']), 'port-not-opened');
  t.match(other.summary, /did not answer HTTP on port 8080 within 20 s/);
  t.match(other.likelyCause, /PORT=8080/);
  t.match(other.likelyCause, /listens on port 3000, not 8080: it logged "Server listening on port 3000"/);
  t.ok(other.commands.some((c) => c.includes('"internalPort":3000')), 'a command moves internalPort to 3000');

  const loopback = explain(t, contextOf(reason, [startedLine, 'INFO:     Uvicorn running on http://127.0.0.1:8080 (Press CTRL+C to quit)']), 'port-not-opened');
  t.match(loopback.likelyCause, /only on the container's loopback address/);
  t.match(loopback.suggestedFix, /0\.0\.0\.0/);

  const silent = explain(t, contextOf(reason, [startedLine]), 'port-not-opened');
  t.match(silent.likelyCause, /never opened port 8080 on 0\.0\.0\.0/);
  t.match(silent.suggestedFix, /\$PORT \(8080\)/);
  t.ok(silent.commands.includes('curl -i http://127.0.0.1:8080/'));

  const overridden = explain(t, contextOf(reason, [startedLine, 'listening on :9000'], {}, ['PORT']), 'port-not-opened');
  t.match(overridden.likelyCause, /listens on port 9000, not 8080/);
  t.match(overridden.likelyCause, /PORT is set as a service variable/);
});

t.test('an unresolved variable reference', async (t) => {
  // The sentence of prepare() in deployment/toolkit/prepared.ts, around the real resolver's leftovers.
  const missing = unresolvedReferences('postgres://app@${nosuch.HOST}:5432/${nosuch.THING}');
  const reason = `variable BROKEN refers to ${missing.join(', ')}, which no service of this project defines; set that variable or fix the reference`;
  t.equal(reason, 'variable BROKEN refers to ${nosuch.HOST}, ${nosuch.THING}, which no service of this project defines; set that variable or fix the reference');
  const e = explain(t, contextOf(reason, [`Deployment ${DEPLOYMENT} started`]), 'unresolved-variable-reference');
  t.match(e.summary, /The variable BROKEN refers to \$\{nosuch\.HOST\}, \$\{nosuch\.THING\}/);
  t.match(e.likelyCause, /variable HOST of the service "nosuch"/);
  t.match(e.suggestedFix, /set HOST on the service "nosuch"/);
  t.ok(e.commands.some((c) => c.includes('$TARGET_SERVICE_ID/env') && c.includes('"key":"HOST"')));
});

t.test('a Git host that does not resolve', async (t) => {
  // git's own words, as `git clone` prints them for a name that does not resolve.
  const reason = await failed('git clone', "git clone exited with code 128: unable to access 'https://git.nosuch.invalid/acme/shop.git/': Could not resolve host: git.nosuch.invalid");
  t.equal(reason, "git clone failed: git clone exited with code 128: unable to access 'https://git.nosuch.invalid/acme/shop.git/': Could not resolve host: git.nosuch.invalid");
  const e = explain(t, contextOf(reason, cloned(), { repoUrl: 'https://git.nosuch.invalid/acme/shop.git' }), 'git-host-unresolved');
  t.match(e.summary, /could not resolve the Git host git\.nosuch\.invalid/);
  t.ok(e.commands.includes('getent hosts git.nosuch.invalid'));
  t.ok(e.commands.includes('git ls-remote https://git.nosuch.invalid/acme/shop.git main'));

  const ssh = explain(
    t,
    contextOf('git clone failed: git clone exited with code 128: Could not read from remote repository.', [
      ...cloned(),
      'ssh: Could not resolve hostname gitlab.internal: Name or service not known',
      'fatal: Could not read from remote repository.',
    ]),
    'git-host-unresolved',
  );
  t.match(ssh.summary, /gitlab\.internal/);

  // The same words from a build step are no clone failure.
  const curl = await failedBuild(['Step 3/6 : RUN curl -fsS https://example.invalid/install.sh | sh', 'curl: (6) Could not resolve host: example.invalid'], "The command '/bin/sh -c curl -fsS https://example.invalid/install.sh | sh' returned a non-zero code: 6");
  t.equal(explainWithRules(contextOf(curl.reason, curl.lines)).rule, 'build-command-failed');
});

t.test('Git authentication, a missing branch, a clone that hangs', async (t) => {
  const auth = explain(t, contextOf("git clone failed: git clone exited with code 128: could not read Username for 'http://127.0.0.1:39411': terminal prompts disabled", cloned()), 'git-authentication');
  t.match(auth.likelyCause, /could not read Username for 'http:\/\/127\.0\.0\.1:39411'/);
  t.ok(auth.commands.some((c) => c.includes('gitToken')));
  const branch = explain(t, contextOf('git clone failed: git clone exited with code 128: Remote branch release/9 not found in upstream origin', cloned('release/9'), { branch: 'release/9' }), 'git-branch-missing');
  t.match(branch.summary, /branch release\/9 does not exist/);
  t.ok(branch.commands.includes(`git ls-remote --heads ${REPO}`));
  const hung = explain(t, contextOf('git clone did not finish within 3 s', cloned()), 'git-clone-timeout');
  t.match(hung.suggestedFix, /SLIPWAY_CLONE_TIMEOUT/);
});

t.test('an image that cannot be pulled', async (t) => {
  const reason = await failed('pulling nginx:1.99', '(HTTP code 404) unexpected - manifest for nginx:1.99 not found: manifest unknown: manifest unknown ');
  t.match(reason, /^pulling nginx:1\.99 failed: .+/);
  const service = { kind: 'image' as const, repoUrl: 'docker-image', dockerImage: 'nginx:1.99', internalPort: 80 };
  const e = explain(t, contextOf(reason, [`Deployment ${DEPLOYMENT} started`, 'Pulling nginx:1.99'], service), 'image-pull-failed');
  t.match(e.summary, /The image nginx:1\.99 could not be pulled/);
  t.match(e.likelyCause, /no such tag/);
  t.ok(e.commands.includes('docker pull nginx:1.99'));

  const privateImage = explain(
    t,
    contextOf(
      await failed('pulling acme/private-api:2', "(HTTP code 404) unexpected - pull access denied for acme/private-api, repository does not exist or may require 'docker login': denied: requested access to the resource is denied "),
      ['Pulling acme/private-api:2'],
      { ...service, dockerImage: 'acme/private-api:2' },
    ),
    'image-pull-failed',
  );
  t.match(privateImage.summary, /acme\/private-api:2/);
  t.match(privateImage.likelyCause, /without registry credentials/);

  const hung = explain(t, contextOf('pulling 127.0.0.1:40111/acme/hangs:1 did not finish within 3 s', ['Pulling 127.0.0.1:40111/acme/hangs:1'], service), 'image-pull-failed');
  t.match(hung.summary, /127\.0\.0\.1:40111\/acme\/hangs:1 did not finish within 3 s/);
  t.match(hung.suggestedFix, /SLIPWAY_PULL_TIMEOUT/);

  const base = await failedBuild(['Step 1/6 : FROM node:99-nosuch'], 'manifest for node:99-nosuch not found: manifest unknown: manifest unknown');
  const fromBuild = explain(t, contextOf(base.reason, [...cloned(), ...base.lines]), 'image-pull-failed');
  t.match(fromBuild.summary, /The image node:99-nosuch could not be pulled as the base image of the build/);
  t.notMatch(fromBuild.suggestedFix, /installation setting/, 'a Dockerfile of the repository names no setting');
});

t.test('a packbuilder base or a database image that cannot be pulled names its setting', async (t) => {
  const imageSettings = { ...loadConfig({}).general, packNodeImage: 'node:20-bookworm-slim' };
  const base = await failedBuild(['Step 1/6 : FROM node:20-bookworm-slim'], 'Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io on 10.0.0.53:53: no such host');
  const build = explain(t, { ...contextOf(base.reason, [...cloned(), ...base.lines]), imageSettings }, 'image-pull-failed');
  t.match(build.summary, /node:20-bookworm-slim could not be pulled as the base image of the build/, 'an unreachable registry at FROM is a pull failure');
  t.match(build.suggestedFix, /installation setting packNodeImage \(environment variable SLIPWAY_PACK_NODE_IMAGE\)[\s\S]*npm run images/);
  t.ok(build.commands.includes('slipway settings set packNodeImage=IMAGE'));

  const reason = await failed('pulling postgres:16', 'Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host');
  const db = explain(t, contextOf(reason, ['Pulling postgres:16'], { kind: 'database', repoUrl: 'database', engine: 'postgres' }), 'image-pull-failed');
  t.match(db.suggestedFix, /installation setting dbImagePostgres \(environment variable SLIPWAY_DB_IMAGE_POSTGRES\)/, 'by the engine, even without the settings');
});

t.test('an out-of-memory kill', async (t) => {
  const start = explain(t, contextOf('the container exited with code 137 before it was ready; see the log above', [`Started container slipway-shop-${DEPLOYMENT}; waiting for it to answer on port 8080`]), 'out-of-memory');
  t.match(start.summary, /ran out of memory and was killed \(exit code 137: SIGKILL\)/);
  t.match(start.likelyCause, /out-of-memory killer/);
  t.ok(start.commands.includes('free -m'));

  const limited = explain(t, contextOf('the container was killed: out of memory (limit 64m) before it was ready; see the log above', [`Started container slipway-shop-${DEPLOYMENT}; waiting for it to answer on port 8080`]), 'out-of-memory');
  t.match(limited.summary, /more memory than its limit of 64m/);
  t.match(limited.suggestedFix, /"resources": \{"memory"/);
  const unlimited = explain(t, contextOf('the container was killed: out of memory before it was ready; see the log above', []), 'out-of-memory');
  t.match(unlimited.likelyCause, /No memory limit was set/);

  const build = await failedBuild(['Step 5/9 : RUN npm run build', '> next build', 'Creating an optimized production build ...', 'Killed'], "The command '/bin/sh -c npm run build' returned a non-zero code: 137");
  const b = explain(t, contextOf(build.reason, build.lines), 'out-of-memory');
  t.match(b.summary, /The build ran out of memory/);

  const heap = await failedBuild(
    ['Step 5/9 : RUN npm run build', 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory', ' 1: 0xb7a940 node::Abort() [node]'],
    "The command '/bin/sh -c npm run build' returned a non-zero code: 134",
  );
  const h = explain(t, contextOf(heap.reason, heap.lines), 'out-of-memory');
  t.match(h.summary, /JavaScript heap/);
  t.ok(h.commands.some((c) => c.includes('NODE_OPTIONS')));
});

t.test('a build command that fails: the first error line is quoted', async (t) => {
  const build = await failedBuild(
    [
      'Step 5/9 : RUN npm run build',
      ' ---> Running in 4c1d2e3f4a5b',
      '> shop@1.0.0 build',
      '> tsc -p .',
      "src/server.ts(12,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "src/server.ts(20,1): error TS2304: Cannot find name 'app'.",
      'npm error Lifecycle script `build` failed with error:',
      'npm error code 2',
      'npm error path /app',
      'npm error command failed',
      'npm error command sh -c tsc -p .',
    ],
    "The command '/bin/sh -c npm run build' returned a non-zero code: 2",
  );
  t.equal(build.reason, "docker build failed: The command '/bin/sh -c npm run build' returned a non-zero code: 2");
  const e = explain(t, contextOf(build.reason, [...cloned(), ...packbuilderLines(nodeApp), ...build.lines], { rootDir: 'services/shop' }), 'build-command-failed');
  t.equal(e.summary, 'The build step "npm run build" failed with exit code 2.');
  t.equal(e.likelyCause, `The first error the build printed is "src/server.ts(12,7): error TS2322: Type 'string' is not assignable to type 'number'.".`);
  t.match(e.suggestedFix, /not to the build/);
  t.same(e.commands, [`git clone --depth 1 --branch main ${REPO} app`, 'cd app/services/shop', 'npm install', 'npm run build']);

  const copy = explain(t, contextOf('docker build failed: COPY failed: file not found in build context or excluded by .dockerignore: stat app.py: file does not exist', ['Step 3/5 : COPY app.py .']), 'build-command-failed');
  t.match(copy.summary, /COPY failed: file not found in build context/);
});

t.test('a container that crashes on start', async (t) => {
  const started = `Started container slipway-shop-${DEPLOYMENT}; waiting for it to answer on port 8080`;
  const python = explain(
    t,
    contextOf('the container exited with code 1 before it was ready; see the log above', [
      ...cloned(),
      'Step 6/6 : CMD ["python3", "app.py"]',
      started,
      'Traceback (most recent call last):',
      '  File "/app/app.py", line 1, in <module>',
      '    import flask',
      "ModuleNotFoundError: No module named 'flask'",
    ]),
    'crashed-on-start',
  );
  t.match(python.summary, /exited with code 1 while starting, after logging "ModuleNotFoundError: No module named 'flask'"/);
  t.ok(python.commands.includes('docker run --rm -e PORT=8080 -p 8080:8080 slipway-check'));

  const notFound = explain(t, contextOf('the container exited with code 127 before it was ready; see the log above', [started, '/bin/sh: 1: exec: gunicorn: not found']), 'crashed-on-start');
  t.match(notFound.likelyCause, /Exit code 127: the start command was not found/);
  t.match(notFound.likelyCause, /gunicorn: not found/);

  const image = explain(t, contextOf('the container exited with code 3 before it was ready; see the log above', [started, 'starting v3'], { kind: 'image', repoUrl: 'docker-image', dockerImage: 'ghcr.io/acme/api:3' }), 'crashed-on-start');
  t.same(image.commands, ['docker run --rm -e PORT=8080 -p 8080:8080 ghcr.io/acme/api:3']);
  t.match(image.summary, /after logging "starting v3"/);
});

t.test('the other failures Slipway names', async (t) => {
  const hungBuild = explain(t, contextOf('docker build did not finish within 6 s', ['Step 2/2 : RUN echo slow-build-started && sleep 300', ' ---> Running in 1a2b', 'slow-build-started']), 'build-timeout');
  t.match(hungBuild.likelyCause, /"Step 2\/2 : RUN echo slow-build-started && sleep 300"/);
  t.match(hungBuild.likelyCause, /last output being "slow-build-started"/);

  const root = explain(t, contextOf('the root directory "apps/web" does not exist in the repository', cloned(), { rootDir: 'apps/web' }), 'root-directory-missing');
  t.match(root.summary, /"apps\/web" is not in the checked-out branch main/);

  const nothing = thrownBy(() => detect(packInput({ 'README.md': '' })));
  t.match(explain(t, contextOf(`packbuilder: ${nothing}`, cloned()), 'nothing-to-build').suggestedFix, /rootDir/);

  const site = await failedBuild(['Step 5/8 : RUN for d in dist build out public _site; do …', 'the build wrote none of: dist, build, out, public, _site'], "The command '/bin/sh -c for d in dist' returned a non-zero code: 1");
  explain(t, contextOf(site.reason, site.lines, { runtimeMode: 'static' }), 'static-output-missing');

  const docker = explain(t, contextOf('Docker engine unreachable: connect ENOENT /var/run/docker.sock', [`Deployment ${DEPLOYMENT} started`]), 'docker-unreachable');
  t.match(docker.likelyCause, /connect ENOENT \/var\/run\/docker\.sock/);

  const pools = explain(
    t,
    contextOf('creating the container failed: (HTTP code 404) driver not found - could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network ', [`Deployment ${DEPLOYMENT} started`]),
    'network-pools-exhausted',
  );
  t.match(pools.suggestedFix, /default-address-pools/);

  const restart = explain(t, contextOf('Slipway stopped while this deployment was running; its build and container were discarded. Deploy again.', []), 'slipway-interrupted');
  t.match(restart.suggestedFix, /Deploy again/);
});

t.test('the fallback quotes the most relevant error line', async (t) => {
  const e = explain(
    t,
    contextOf('the proxy did not take the new route: caddy answered HTTP 400', [...cloned(), 'Built image slipway/shop-0193:abc', 'warning: deprecated option', 'Error: listen EADDRINUSE: address already in use :::8080']),
    FALLBACK_RULE,
  );
  t.equal(e.summary, 'The deployment failed: "the proxy did not take the new route: caddy answered HTTP 400".');
  t.match(e.likelyCause, /"Error: listen EADDRINUSE: address already in use :::8080"/);
  const empty = explain(t, contextOf(null, []), FALLBACK_RULE);
  t.equal(empty.summary, 'The deployment failed without a recorded reason.');
});

t.test('errorLine skips Slipway\'s own lines and npm\'s bookkeeping', async (t) => {
  t.equal(errorLine(['Deployment failed: docker build failed: x', 'npm error code 1', 'npm error', 'npm error Missing: a@1 from lock file']), 'npm error Missing: a@1 from lock file');
  t.equal(errorLine(['Step 1/2 : RUN make', 'error: old step', 'Step 2/2 : RUN make test', 'ok 1', 'FAIL: test_x failed']), 'FAIL: test_x failed', 'the last step only');
  t.equal(errorLine(['all good']), null);
});

t.test('every rule was exercised, and builtinExplainer answers the same', async (t) => {
  // These two are exercised with the app's own output in explain-rules.test.ts.
  const elsewhere = ['health-check-http-status', 'missing-variable'];
  t.same([...seen].sort(), [...BUILTIN_RULES.map((r) => r.id).filter((id) => !elsewhere.includes(id)), FALLBACK_RULE].sort());
  const context = contextOf('git clone did not finish within 3 s', []);
  t.same(await builtinExplainer().explain(context, null), explainWithRules(context).explanation);
});
