import { Readable } from 'node:stream';
import t from 'tap';
import { NO_RELEASE, service } from '../../commands/service/aggregate.js';
import { chooseBuild, insideRoot } from '../../src/build/build-plan.js';
import { detect, type PackInput } from '../../src/build/packbuilder/detect.js';
import { packDockerfile } from '../../src/build/packbuilder/dockerfile.js';
import { dockerTimeKey } from '../../src/runtime/docker-time.js';
import { followProgress, LogDemuxer } from '../../src/runtime/docker-streams.js';
import { createRedactor, isSecretVariable, secretValues } from '../../src/secrets/redactor.js';
import { deciderSpec } from '../helpers/decider-spec.js';
import { sourceServiceData } from '../helpers/service-fixture.js';

const images = { node: 'n', python: 'p', go: 'g', run: 'r', static: 's' };
const files = (map: Record<string, string>) => ({ has: (n: string) => n in map, read: (n: string) => map[n] ?? null });
const input = (map: Record<string, string>, extra: Partial<PackInput> = {}): PackInput => ({
  files: files(map),
  installCommand: null,
  buildCommand: null,
  startCommand: null,
  runtimeMode: 'web',
  internalPort: 3000,
  images,
  ...extra,
});

t.test('build method rules', async (t) => {
  const has = (...paths: string[]) => (p: string) => paths.includes(p);
  const s = (buildMethod: 'auto' | 'dockerfile' | 'packbuilder', dockerfilePath: string | null = null, dockerfilePathVariable: string | null = null) => ({
    buildMethod,
    dockerfilePath,
    dockerfilePathVariable,
  });
  t.same(chooseBuild(s('auto'), has('Dockerfile')), { method: 'dockerfile', dockerfile: 'Dockerfile' }, 'auto with a Dockerfile');
  t.same(chooseBuild(s('auto'), has()), { method: 'packbuilder' }, 'auto without one');
  t.same(chooseBuild(s('packbuilder'), has('Dockerfile')), { method: 'packbuilder' }, 'packbuilder even with one');
  t.throws(() => chooseBuild(s('dockerfile'), has()), /buildMethod is "dockerfile" but there is no Dockerfile/);
  t.same(chooseBuild(s('dockerfile', 'ops/App.Dockerfile'), has('ops/App.Dockerfile')), { method: 'dockerfile', dockerfile: 'ops/App.Dockerfile' });
  t.same(chooseBuild(s('dockerfile', 'a', './b/Dockerfile'), has('b/Dockerfile')), { method: 'dockerfile', dockerfile: 'b/Dockerfile' }, 'the variable overrides');
  t.throws(() => chooseBuild(s('dockerfile', '../../etc/passwd'), has()), /leaves the service root/);
  t.equal(insideRoot('/abs'), null);
  t.equal(insideRoot('a/../../b'), null);
  t.equal(insideRoot('./a//b'), 'a/b');
});

t.test('packbuilder detection', async (t) => {
  const node = detect(input({ 'package.json': '{"scripts":{"build":"vite build","start":"node dist/server.js"}}', 'package-lock.json': '{}' }));
  t.match(node, { language: 'node', install: 'npm ci --no-audit --no-fund', build: 'npm run build', start: 'npm start' });
  t.match(detect(input({ 'package.json': '{"scripts":{"start":"x"}}', 'yarn.lock': '' })), { install: /yarn install --frozen-lockfile/, build: null, start: 'yarn start' });
  t.match(detect(input({ 'package.json': '{"scripts":{"build":"b","start":"x"}}', 'pnpm-lock.yaml': '' })), { install: /pnpm install --frozen-lockfile/, build: 'pnpm run build' });
  t.match(detect(input({ 'package.json': '{"main":"lib/app.js"}' })), { start: 'node lib/app.js' });
  t.match(detect(input({ 'package.json': '{}', 'index.js': '' })), { start: 'node index.js' });
  t.match(detect(input({ 'package.json': '{}', 'index.js': '' }, { installCommand: 'make deps', buildCommand: 'make', startCommand: './run' })), {
    install: 'make deps',
    build: 'make',
    start: './run',
  }, 'custom commands win');
  t.throws(() => detect(input({ 'package.json': '{}' })), /without a start command/);
  t.throws(() => detect(input({ 'package.json': '{oops' })), /not valid JSON/);
  t.match(detect(input({ 'requirements.txt': 'flask', Procfile: 'web: gunicorn app:app\n' })), { language: 'python', install: /-r requirements\.txt/, start: 'gunicorn app:app' });
  t.match(detect(input({ 'pyproject.toml': '', 'manage.py': '' })), { install: 'pip install --no-cache-dir .', start: /manage\.py runserver 0\.0\.0\.0:\$PORT/ });
  t.throws(() => detect(input({ 'requirements.txt': '' })), /Python app without a start command/);
  t.match(detect(input({ 'go.mod': 'module x' })), { language: 'go', start: '/slipway/app' });
  t.match(detect(input({ 'index.html': '' })), { language: 'static', build: null });
  t.match(detect(input({ 'package.json': '{"scripts":{"build":"astro build"}}' }, { runtimeMode: 'static' })), { language: 'static', build: 'npm run build' });
  t.throws(() => detect(input({ 'README.md': '' })), /could not detect how to build this app/);
});

t.test('packbuilder Dockerfiles', async (t) => {
  const node = packDockerfile(detect(input({ 'package.json': '{"scripts":{"start":"node s.js"}}' })), images, 3000);
  t.match(node, /^FROM n\n/);
  t.match(node, /ENV PORT=3000\nEXPOSE 3000\nCMD \["\/bin\/sh","-c","exec npm start"\]$/, 'the app is PID 1 and gets SIGTERM');
  const go = packDockerfile(detect(input({ 'go.mod': '' })), images, 8080);
  t.match(go, /^FROM g AS build[\s\S]*RUN CGO_ENABLED=0 go build -o \/slipway\/app \.\nFROM r\nCOPY --from=build \/slipway \/slipway/);
  const site = packDockerfile(detect(input({ 'package.json': '{"scripts":{"build":"b"}}' }, { runtimeMode: 'static' })), images, 80);
  t.match(site, /FROM n AS build[\s\S]*for d in dist build out public _site[\s\S]*FROM s\nCOPY --from=build \/site \/srv\/site[\s\S]*busybox httpd -f -v -p \$PORT/);
  t.match(packDockerfile(detect(input({ 'index.html': '' })), images, 80), /^FROM s\nCOPY \. \/srv\/site/);
  t.match(packDockerfile(detect(input({ 'app.py': '' })), images, 5000), /python3 -m venv \/venv[\s\S]*exec python app\.py/);
});

t.test('secret redaction', async (t) => {
  t.ok(isSecretVariable('DB_PASSWORD', 'abcd'));
  t.notOk(isSecretVariable('POSTGRES_USER', 'postgres'), 'a short plain value under an ordinary name stays readable');
  t.notOk(isSecretVariable('WHATEVER', 'a-long-plain-value-1234'), 'a long plain value under an ordinary name stays readable');
  t.notOk(isSecretVariable('IMAGE', 'slipway/db-postgres:bookworm'), 'an image name stays readable');
  t.notOk(isSecretVariable('MYSQL_USER', 'root'), "an engine's default user stays readable");
  for (const [value, what] of [
    ['k3J9xQ2mZ7pL4vR8', 'a generated token'],
    ['ghp_16C7e42F292c6912E7710c838347Ae178B4a', 'a prefixed token'],
    ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', 'a hex digest'],
    ['xQmZpLvRkJtYwNbS', 'mixed case with no digit'],
    ['redis://default:hunter2@cache:6379', 'a URL with a password'],
    ['-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----', 'a private key'],
  ] as const)
    t.ok(isSecretVariable('WHATEVER', value), `${what} is hidden whatever its name`);
  t.notOk(isSecretVariable('API_KEY', 'abc'), 'too short to hide');
  const redact = createRedactor(secretValues([
    { key: 'DATABASE_URL', value: '${db.DATABASE_URL}', resolved: 'postgres://u:pw-1234@db/x' },
    { key: 'DB_PASS', value: 'pw-1234', resolved: 'pw-1234' },
  ]));
  t.equal(redact('url postgres://u:pw-1234@db/x and pw-1234 and ${db.DATABASE_URL}'), 'url [redacted] and [redacted] and [redacted]');
  t.equal(createRedactor(['a.b*c'])('x a.b*c y'), 'x [redacted] y', 'regex characters are literal');
  t.equal(createRedactor([])('nothing'), 'nothing');
});

t.test('Docker log frames and progress streams', async (t) => {
  const frame = (type: number, text: string | Buffer) => {
    const body = Buffer.from(text);
    const head = Buffer.alloc(8);
    head[0] = type;
    head.writeUInt32BE(body.length, 4);
    return Buffer.concat([head, body]);
  };
  const demux = new LogDemuxer(true);
  const whole = Buffer.concat([frame(1, '2026-11-21T10:00:00.5Z hello\n'), frame(2, '2026-11-21T10:00:01Z oops\n2026-11-21T10:00:01.25Z par')]);
  const first = demux.push(whole.subarray(0, 20));
  t.same(first, [], 'a partial frame waits');
  t.same(demux.push(whole.subarray(20)), [
    { stream: 'stdout', line: 'hello', time: '2026-11-21T10:00:00.5Z' },
    { stream: 'stderr', line: 'oops', time: '2026-11-21T10:00:01Z' },
  ]);
  t.same(demux.end(), [{ stream: 'stderr', line: 'par', time: '2026-11-21T10:00:01.25Z' }], 'the last partial line at the end');

  const lines: string[] = [];
  await followProgress(Readable.from(['{"stream":"Step 1/2 : FROM x\\n"}\n{"stream":"abc', '"}\n{"stream":"def\\n"}\n']), (l) => lines.push(l));
  t.same(lines, ['Step 1/2 : FROM x', 'abcdef']);
  // A character split between two chunks (two frames) is decoded whole.
  const rocket = Buffer.from('{"stream":"launch 🚀 done\\n"}\n');
  const at = rocket.indexOf(Buffer.from('🚀')) + 2;
  const split: string[] = [];
  await followProgress(Readable.from([rocket.subarray(0, at), rocket.subarray(at)]), (l) => split.push(l));
  t.same(split, ['launch 🚀 done']);
  const framed = frame(1, 'ünïcode 🚀 ok\n');
  const cut = framed.indexOf(Buffer.from('🚀')) + 1;
  const halves = new LogDemuxer(false);
  t.same([...halves.push(Buffer.concat([frame(1, framed.subarray(8, cut)), frame(1, framed.subarray(cut))])), ...halves.end()], [{ stream: 'stdout', line: 'ünïcode 🚀 ok', time: null }]);
  await t.rejects(followProgress(Readable.from(['{"error":"boom","errorDetail":{"message":"The command returned 1"}}\n']), () => undefined), /The command returned 1/);

  t.equal(dockerTimeKey('2026-11-21T10:00:00.5Z'), `${Date.UTC(2026, 10, 21, 10) / 1000}.500000000`);
  t.ok(dockerTimeKey('2026-11-21T10:00:00.123456789Z')! > dockerTimeKey('2026-11-21T10:00:00.1Z')!, 'keys sort as text');
  t.equal(dockerTimeKey('garbage'), null);
});

t.test('a release switches the route only for a live service, once', async (t) => {
  const release = { deploymentId: 'd1', containerName: 'c', upstreamPort: 40000, buildMethod: 'dockerfile' as const };
  const spec = deciderSpec(service);
  spec.given().when('release', release).then(t, [], 'no service, no release');
  const live = spec.given({ type: 'ServiceCreated', data: sourceServiceData });
  live.when('release', release).then(t, [{ type: 'ServiceReleased', data: release }]);
  const released = live.when('release', release).given();
  t.same(released.state.release, release);
  released.when('release', release).then(t, [], 'the same release twice is one event');
  t.same(released.when('release', { ...release, upstreamPort: 40001 }).events.length, 1, 'a moved port is a new release');
  t.equal(released.when('release', NO_RELEASE).state.release, null, 'undone');
});
