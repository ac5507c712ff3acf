import { randomUUID } from 'node:crypto';
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
