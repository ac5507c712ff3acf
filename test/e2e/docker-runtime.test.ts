import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createDockerRuntime } from '../../src/runtime/docker-runtime.js';
import { docker, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { eventually, getVia } from '../helpers/net.js';

const IMAGE = TEST_IMAGES.python;

t.test('runs, finds and removes containers it labels', { skip: await requireDocker() }, async (t) => {
  const runtime = createDockerRuntime({ socketPath: '/var/run/docker.sock', callTimeoutMs: 30_000, instance: randomUUID() });
  await runtime.ping();
  const run = randomUUID().slice(0, 8);
  const network = `slipway-test-${run}`;
  // The first deployments of a project ask for its network at the same time.
  await Promise.all([1, 2, 3, 4, 5].map(() => runtime.ensureNetwork(network, { [LABEL.project]: run })));
  const networks = (await docker.listNetworks({ filters: { name: [network] } })).filter((n) => n.Name === network);
  t.equal(networks.length, 1, 'one network, however many asked for it at once');
  await runtime.ensureNetwork(network, { [LABEL.project]: run });
  t.teardown(async () => {
    for (const c of await runtime.list({ [LABEL.project]: run })) await runtime.remove(c.name, 1);
    await docker.getNetwork(network).remove().catch(() => undefined);
  });

  const spec = {
    name: `slipway-test-web-${run}`,
    image: IMAGE,
    env: { GREETING: 'hello' },
    labels: { [LABEL.project]: run, [LABEL.service]: 'web', [LABEL.deployment]: run },
    network,
    aliases: ['web'],
    internalPort: 8000,
    publish: true,
    command: ['python3', '-m', 'http.server', '8000'],
  };
  const started = await runtime.run(spec);
  t.ok(started.hostPort && started.hostPort > 0, 'published on an ephemeral loopback port');
  // docker-proxy accepts before the app listens: probe with a real request.
  const answer = await eventually(
    () => getVia(started.hostPort!, 'localhost'),
    (r) => r.status === 200,
  );
  t.equal(answer.status, 200, 'the app answers through the published port');

  const again = await runtime.run(spec);
  t.equal(again.id, started.id, 'running the same name again finds the same container');

  const owned = await runtime.list({ [LABEL.project]: run });
  t.same(owned.map((c) => [c.name, c.running, c.labels[LABEL.managed]]), [[spec.name, true, 'true']]);

  await runtime.remove(spec.name, 1);
  t.same(await runtime.list({ [LABEL.project]: run }), [], 'removed');
  await t.resolves(runtime.remove(spec.name, 1), 'removing a missing container is fine');
});

t.test('builds a context as it is: links stay links, fifos and a file named like the Dockerfile entry stay out', { skip: await requireDocker() }, async (t) => {
  const runtime = createDockerRuntime({ socketPath: '/var/run/docker.sock', callTimeoutMs: 30_000, instance: randomUUID() });
  const run = randomUUID().slice(0, 8);
  const base = mkdtempSync(join(tmpdir(), 'slipway-context-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  const secret = `outside-${randomUUID()}`;
  writeFileSync(join(base, 'secret.txt'), secret);
  const context = join(base, 'context');
  mkdirSync(context);
  writeFileSync(join(context, 'app.txt'), 'inside\n', { mode: 0o600 });
  writeFileSync(join(context, 'run.sh'), 'echo ran\n', { mode: 0o700 });
  symlinkSync(join(base, 'secret.txt'), join(context, 'leak'));
  symlinkSync(base, join(context, 'leak-dir'));
  execFileSync('mkfifo', [join(context, 'pipe')]);
  // Were this file sent, the engine would build it instead of the text it was given.
  writeFileSync(join(context, '.slipway-build.Dockerfile'), `FROM ${IMAGE}\nRUN exit 3\n`);
  const tag = `slipway/test-context-${run}:1`;
  t.teardown(() => docker.getImage(tag).remove({ force: true }).catch(() => undefined));
  const lines: string[] = [];
  await runtime.build(
    {
      contextDir: context,
      // The checkout is written under Slipway's umask (077): an app that runs as another user must still read it.
      dockerfileText: `FROM ${IMAGE}\nCOPY . /ctx\nRUN test -L /ctx/leak && test -L /ctx/leak-dir && test ! -e /ctx/pipe && test "$(cat /ctx/app.txt)" = inside\nUSER nobody\nRUN test "$(cat /ctx/app.txt)" = inside && test "$(sh /ctx/run.sh)" = ran && test -x /ctx/run.sh && test "$(stat -c %a /ctx/app.txt /ctx/run.sh | tr '\\n' ' ')" = "644 755 "\n`,
      tag,
      labels: { [LABEL.project]: run },
    },
    (line) => lines.push(line),
    AbortSignal.timeout(120_000),
  );
  const built = await docker.getImage(tag).inspect();
  t.equal(built.Config.Labels?.[LABEL.project], run, 'built from the text given, labelled');
  t.notMatch(lines.join('\n'), secret, 'nothing of the link targets in the build output');
  const inImage = (script: string) => execFileSync('docker', ['run', '--rm', '--entrypoint', '/bin/sh', tag, '-c', `${script} 2>&1; true`], { encoding: 'utf8' });
  t.same(inImage('ls -A /ctx').split('\n').filter(Boolean).sort(), ['.slipway-build.Dockerfile', 'app.txt', 'leak', 'leak-dir', 'run.sh'], 'the fifo stayed out');
  t.notMatch(inImage('cat /ctx/leak /ctx/leak-dir/secret.txt'), secret, 'the links were sent as links: their targets are not in the image');
  t.notMatch(inImage('cat /ctx/.slipway-build.Dockerfile'), /exit 3/, 'the entry is the Dockerfile given, the file of that name stayed out');
});
