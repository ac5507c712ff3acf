import { randomUUID } from 'node:crypto';
import t from 'tap';
import { findService } from '../../projections/service-queries.js';
import type { ContainerRuntime, ContainerUsage } from '../../src/runtime/container-runtime.js';
import { createDockerRuntime } from '../../src/runtime/docker-runtime.js';
import { createKey, createProject, createService, testWebService } from '../helpers/http-resources.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { eventually } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('the overview reads usage from a sampler that runs while someone looks', { skip: await requireDocker() }, async (t) => {
  // A short quiet period, so that the test sees sampling stop on its own.
  const { env } = await deployEnv({ SLIPWAY_USAGE_QUIET: '3' });
  const s = await startTestServer(env);
  let closed = false;
  t.teardown(() => (closed ? undefined : s.close()));
  const project = await createProject(s, 'Sampled');
  t.teardown(() => removeProjectLeftovers(project.id));
  const web = await createService(s, project.id, testWebService('sampled'));
  const { done } = await deploy(s, web.id);
  t.equal(outcome(done), 'succeeded');
  const container = (await findService(s.app.db, web.id))!.current_container!;
  const key = `local/${container}`;

  // Every stream the sampler opens goes through the runtime's `usage`: counted here.
  const runtime: ContainerRuntime = await s.app.nodes.runtime(null);
  const engineUsage = runtime.usage;
  const opened: { name: string; signal: AbortSignal }[] = [];
  runtime.usage = (name, signal) => {
    opened.push({ name, signal });
    return engineUsage(name, signal);
  };

  t.same(s.app.usage.sampled().containers, [], 'a deployed service nobody looks at is not sampled');

  t.test('another project\'s key is refused before anything is sampled', async (t) => {
    const other = await createProject(s, 'Elsewhere');
    const { secret } = await createKey(s, 'read', [other.id]);
    const refused = await s.call('GET', `/api/services/${web.id}/overview`, { key: secret });
    t.equal(refused.status, 404);
    t.same(s.app.usage.sampled().containers, [], 'nothing sampled');
    t.equal(opened.length, 0, 'no stream opened');
  });

  t.test('the first overview starts sampling; usage arrives from it; later overviews ask Docker nothing', async (t) => {
    const first = await s.call('GET', `/api/services/${web.id}/overview`);
    t.equal(first.status, 200);
    t.ok(first.body.usage === null || first.body.usage.memoryBytes > 0, 'the first answers at once: a first reading, or null (not known yet)');
    t.same(s.app.usage.sampled().containers, [key], 'its container is sampled from now on');

    const overview = () => s.call('GET', `/api/services/${web.id}/overview`);
    const usage: ContainerUsage | null = (await eventually(overview, (o) => o.body.usage !== null, 30_000)).body.usage;
    t.ok(usage, 'usage arrived from the sampler');
    t.ok(usage!.memoryBytes > 0, `memory in use (${usage!.memoryBytes})`);
    t.ok(usage!.memoryLimitBytes >= usage!.memoryBytes, 'under its limit (the host\'s memory: none set)');
    t.ok(usage!.pids >= 1, `tasks (${usage!.pids})`);
    t.ok(usage!.cpuPercent >= 0, `CPU (${usage!.cpuPercent} %)`);

    const again = await Promise.all(Array.from({ length: 10 }, overview));
    t.ok(again.every((o) => o.status === 200 && o.body.usage?.memoryBytes > 0), '10 more overviews, each with the latest reading');
    t.same(opened.map((o) => o.name), [container], 'one stream for every overview so far');
    t.equal(s.app.usage.sampled().streamsStarted, 1, 'the sampler started one source');
    t.notOk(opened[0]!.signal.aborted, 'and it still runs');
  });

  t.test('sampling stops after the quiet period; the next overview starts it again', async (t) => {
    await eventually(async () => s.app.usage.sampled().containers, (sampled) => sampled.length === 0, 30_000);
    t.same(s.app.usage.sampled().containers, [], 'nothing sampled once nobody has asked for 3 s');
    t.ok(opened[0]!.signal.aborted, 'its stream was closed');
    const next = await s.call('GET', `/api/services/${web.id}/overview`);
    t.equal(next.status, 200);
    t.equal(opened.length, 2, 'a new stream');
    t.same(s.app.usage.sampled().containers, [key]);
  });

  t.test('stopping the server stops sampling', async (t) => {
    closed = true;
    await s.close();
    t.ok(opened.every((o) => o.signal.aborted), 'every stream closed');
    t.same(s.app.usage.sampled().containers, []);
  });
});

t.test('a container\'s usage stream ends by itself when the container is removed', { skip: await requireDocker() }, async (t) => {
  const runtime = createDockerRuntime({ socketPath: '/var/run/docker.sock', callTimeoutMs: 30_000, instance: randomUUID() });
  const name = `slipway-test-usage-${randomUUID().slice(0, 8)}`;
  const started = await docker.createContainer({ name, Image: TEST_IMAGES.web });
  t.teardown(() => started.remove({ force: true }).catch(() => undefined));
  await started.start();
  const stop = new AbortController();
  t.teardown(() => stop.abort());
  const readings: (ContainerUsage | null)[] = [];
  const iterating = (async () => {
    for await (const reading of runtime.usage(name, stop.signal)) {
      readings.push(reading);
      if (readings.length === 2) await started.remove({ force: true });
    }
  })();
  await iterating;
  t.ok(readings[0] && readings[0].memoryBytes > 0, 'the first reading has memory at once');
  t.ok(readings[1] && readings[1].cpuPercent >= 0, 'the next one CPU too');
  t.notOk(stop.signal.aborted, 'it ended without being stopped');
  let missing: unknown = null;
  try {
    for await (const reading of runtime.usage(name, stop.signal)) readings.push(reading);
  } catch (error) {
    missing = error;
  }
  t.ok(missing, 'no such container: the stream fails at once');
});
