import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import t from 'tap';
import { ROUTER_CONTAINER, swarmServiceName } from '../../src/cluster/cluster-router.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { requireCaddy } from '../helpers/caddy.js';
import { CLUSTER_IMAGES, clusterEnv, clusterUnavailable, dockerOf, loadImages, startNodes } from '../helpers/cluster.js';
import { deploy, deployEnv, logLines, outcome, probe, steadyLoad, waitForDeployment } from '../helpers/deploy.js';
import { requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { testWebService } from '../helpers/http-resources.js';
import { eventually, getVia, waitFor } from '../helpers/net.js';
import { readSse } from '../helpers/sse.js';
import { startTestServer } from '../helpers/test-server.js';

const run = promisify(execFile);
const REGISTRY_PORT = 5443;
const ROUTER_PORT = 7080;
// Node indices of this file's engines: other cluster files use 1–8 at the same time.
const MANAGER = 10;
const WORKER = 11;

t.setTimeout(900_000);
// A request fails when it gets no answer or an error, not when it is slow: a client here waits as long as the
// router may hold a request while the engine's DNS stalls (15 s), and a bit more. Slow ones are printed.
const PATIENCE_MS = 20_000;

/**
 * The slots of the service running on each node. Counted by slot: during a start-first move a slot's old task still
 * runs beside its new one until Swarm stops it (a loaded fresh run saw 5 running on the manager for 2 minutes).
 */
const tasksByNode = async (s: { call: (m: string, p: string) => Promise<{ body: any }> }, serviceId: string) => {
  const nodes = (await s.call('GET', '/api/cluster/nodes')).body.nodes as { hostname: string; tasks: { serviceId: string | null; state: string; slot: number | null }[] }[];
  const slots = (n: (typeof nodes)[number]) => new Set(n.tasks.filter((task) => task.serviceId === serviceId && task.state === 'running').map((task) => task.slot)).size;
  return Object.fromEntries(nodes.map((n) => [n.hostname, slots(n)]));
};

t.test('cluster: a web service of 3 tasks on 2 nodes, updated and drained under load, a bad release rolled back by Swarm', { skip: (await requireDocker()) || (await requireCaddy()) || (await clusterUnavailable()) }, async (t) => {
  // The worker gets no image by hand: it pulls releases from the manager's registry.
  const cluster = await startNodes([MANAGER, WORKER], []);
  t.teardown(() => cluster.stop());
  const [manager, worker] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
  await loadImages(manager, [CLUSTER_IMAGES.registry, CLUSTER_IMAGES.proxy, TEST_IMAGES.web]);
  const { env, proxyPort } = await deployEnv({ ...clusterEnv(manager, REGISTRY_PORT), SLIPWAY_CLUSTER_ROUTER: `${manager.address}:${ROUTER_PORT}` });
  let s = await startTestServer(env);
  // Slipway is restarted once below, on the same data directory.
  const dataDir = s.dataDir;
  t.teardown(async () => {
    await s.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  // How a load went, and on a failed request what the router and Swarm said: a rare failure in CI is otherwise
  // a bare "timeout".
  const loadReport = async (label: string, results: { status: number; ms: number; atMs: number }[]) => {
    const slow = results.filter((r) => r.ms > 1000).map((r) => `${r.ms} ms at +${r.atMs} ms`);
    t.comment(`${label}: ${results.length} requests, slowest ${Math.max(...results.map((r) => r.ms))} ms${slow.length ? `; over 1 s: ${slow.join(', ')}` : ''}`);
    if (results.every((r) => r.status === 200)) return;
    const docker = (...args: string[]) => run('docker', ['-H', `unix://${manager.socket}`, ...args], { timeout: 30_000 }).then((r) => r.stdout + r.stderr, String);
    t.comment(`router log:\n${await docker('logs', '--since', '10m', ROUTER_CONTAINER)}`);
    t.comment(`tasks:\n${await docker('service', 'ps', '--no-trunc', swarmServiceName(svc.id))}`);
  };

  const registry = `${manager.address}:${REGISTRY_PORT}`;
  cluster.trusts(registry);
  t.equal((await s.call('POST', '/api/cluster', { body: { advertiseAddress: manager.address } })).status, 200);
  const { joinCommand } = (await s.call('POST', '/api/cluster/nodes', { body: {} })).body;
  await run('sh', ['-c', joinCommand], { env: { ...process.env, DOCKER_HOST: `unix://${worker.socket}` }, timeout: 60_000 });
  await waitFor('two ready nodes', async () => (await s.call('GET', '/api/cluster/nodes')).body.nodes as { state: string }[], (l) => l?.length === 2 && l.every((n) => n.state === 'ready'));

  const project = await createProject(s, 'Swarm');
  const svc = await createService(s, project.id, { ...testWebService('web'), replicas: 3, env: [{ key: 'GREETING', value: 'v1' }] });
  t.equal(svc.replicas, 3, 'replicas is a service field');
  t.same(svc.nodeLabels, {}, 'no placement by default');

  const domain = 'web.swarm.test';
  t.equal((await s.call('POST', `/api/services/${svc.id}/domains`, { body: { hostname: domain } })).status, 200);

  const started = Date.now();
  const { done: first } = await deploy(s, svc.id);
  t.equal(outcome(first), 'succeeded', 'the first release is live');
  // Succeeded means its domain answers: the very first request, sent at once and only once, gets the app.
  const firstSent = Date.now();
  const firstAnswer = await getVia(proxyPort, domain, '/', 3000).catch((e: unknown) => ({ status: 0, body: String(e) }));
  t.same(firstAnswer, { status: 200, body: 'v1' }, `the first request to its domain after the deployment succeeded answers (in ${Date.now() - firstSent} ms)`);
  const routeLines = (await logLines(s, first.id)).filter((l) => /route/i.test(l));
  t.comment(routeLines.join('\n'));
  t.ok(routeLines.some((l) => /^.*Waiting for the route to answer: GET \/ on port \d+ through the proxy/.test(l)), 'the log says what the run waits for');
  t.ok(routeLines.some((l) => /The route answers \(HTTP 200 after \d+ ms\)/.test(l)), 'and that the route answered before success was recorded');
  // The router starts on a network of its own, so its Caddy asks the engine's DNS from the first lookup on.
  t.notOk(routeLines.some((l) => /does not answer yet/.test(l)), 'the check’s first request answered');
  t.comment(`first deployment (push, pull on the worker, 3 tasks) took ${Date.now() - started} ms`);
  const spread = await tasksByNode(s, svc.id);
  t.equal(spread.node10! + spread.node11!, 3, `3 tasks run (${JSON.stringify(spread)})`);
  t.ok(spread.node11! >= 1, 'the worker runs a task of an image built on the manager: it pulled it from the registry by digest');
  const spec = (await dockerOf(manager).getService(`slipway-s-${svc.id}`).inspect()).Spec;
  t.match(spec.TaskTemplate.ContainerSpec.Image, new RegExp(`^${registry.replace(/\./g, '\\.')}/slipway/${svc.id}(:[^@]+)?@sha256:[0-9a-f]{64}$`), 'by digest from the registry');
  t.match(spec.UpdateConfig, { Parallelism: 1, Order: 'start-first', FailureAction: 'rollback' });
  t.equal(spec.EndpointSpec.Mode, 'dnsrr');
  t.same(await probe(svc.hostPort), { status: 200, body: 'v1' }, 'its host port answers through the router');

  // The router sits on every project's overlay: a task there that names a service (its own project's or
  // another's) without the installation's router key is refused.
  const asTask = `import urllib.request, urllib.error, sys
req = urllib.request.Request('http://slipway-cluster-router:8080/', headers={'X-Slipway-Upstream': sys.argv[1], 'X-Slipway-Port': '8000', 'X-Slipway-Router-Key': sys.argv[2]})
try:
    print(urllib.request.urlopen(req, timeout=5).status)
except urllib.error.HTTPError as e:
    print(e.code)`;
  for (const key of ['', 'f'.repeat(64)]) {
    const { stdout } = await run('docker', ['-H', `unix://${manager.socket}`, 'run', '--rm', '--network', `slipway-o-${project.id}`, TEST_IMAGES.web, 'python3', '-c', asTask, `slipway-s-${svc.id}`, key], { timeout: 60_000 });
    t.equal(stdout.trim(), '421', `a task on the overlay without the router's key is refused (${key ? 'a forged key' : 'no key'})`);
  }
  const healthy = (await s.call('GET', '/api/health')).body;
  t.match(healthy.cluster, { ok: true, nodesDown: [], servicesBelowReplicas: [] }, 'health: every node ready, every service at its replica count');

  // Logs of every task, each line naming its task and node. A worker's lines reach the manager through Swarm's
  // log broker, a moment after the task started: the stream is opened again until they are there.
  type LogLine = { line: string; task: string; node: string };
  const snapshotOnce = async () => {
    const logs = await readSse(`${s.url}/api/services/${svc.id}/runtime-logs/stream`, s.key);
    try {
      await eventually(async () => logs.events.find((e) => e.event === 'snapshot'), Boolean, 15_000);
      return logs.events.find((e) => e.event === 'snapshot')!.data as LogLine[];
    } finally {
      logs.close();
    }
  };
  const startsIn = (lines: LogLine[]) => lines.filter((l) => /test-web listening/.test(l.line));
  const starts = startsIn(await waitFor('a snapshot with every task’s start', snapshotOnce, (lines) => Array.isArray(lines) && startsIn(lines).length >= 3, 30_000));
  t.ok(starts.length >= 3, `the snapshot holds the tasks' lines (${starts.length} starts)`);
  t.same(new Set(starts.map((l) => l.node)), new Set(['node10', 'node11']), 'from both nodes (the first release is spread over both)');
  t.ok(starts.every((l) => new RegExp(`^slipway-s-${svc.id}\\.\\d$`).test(l.task)), 'each marked with its task');

  // A new variable is a new release: tasks are replaced one at a time, each new one healthy before an old one goes.
  await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'GREETING', value: 'v2' } });
  let load = steadyLoad(svc.hostPort, 'localhost', PATIENCE_MS);
  const updateStarted = Date.now();
  const { done: second } = await deploy(s, svc.id);
  t.equal(outcome(second), 'succeeded');
  t.comment(`update of 3 tasks took ${Date.now() - updateStarted} ms`);
  await eventually(() => probe(svc.hostPort), (r) => r.body === 'v2', 10_000);
  let results = await load.stop();
  await loadReport('update', results);
  t.same(results.filter((r) => r.status !== 200), [], `0 failed requests of ${results.length} during the update`);
  t.ok(results.some((r) => r.body === 'v1') && results.some((r) => r.body === 'v2'), 'the old release answered, then the new one');

  // A release whose tasks never pass their check: Swarm rolls the update back, and v2 keeps serving.
  const patched = await s.call('PATCH', `/api/services/${svc.id}`, { body: { healthCheck: { type: 'http', path: '/', expectStatus: '204', intervalSeconds: 1, timeoutSeconds: 1, retries: 2 } } });
  t.equal(patched.status, 200, JSON.stringify(patched.body));
  load = steadyLoad(svc.hostPort, 'localhost', PATIENCE_MS);
  const bad = patched.body.deployment ? await waitForDeployment(s, svc.id, patched.body.deployment.id, 180_000) : (await deploy(s, svc.id)).done;
  t.equal(bad.status, 'rolled_back', outcome(bad));
  t.match(bad.reason, /rollback|health|unhealthy/i, 'with Swarm’s reason');
  results = await load.stop();
  await loadReport('bad release', results);
  t.same(results.filter((r) => r.status !== 200 || r.body !== 'v2'), [], `v2 answered all ${results.length} requests meanwhile`);
  const restored = await s.call('PATCH', `/api/services/${svc.id}`, { body: { healthCheck: 'default' } });
  t.equal(restored.status, 200);
  if (restored.body.deployment) t.equal(outcome(await waitForDeployment(s, svc.id, restored.body.deployment.id, 180_000)), 'succeeded', 'the default check back');
  // The release is recorded just after its deployment's success: until then the list has no current one.
  const v2 = (await waitFor('a current release', async () => ((await s.call('GET', `/api/services/${svc.id}/releases`)).body.releases as Record<string, any>[]).find((r) => r.current), Boolean, 10_000))!;

  // Another image that never passes the check (the registry's: nothing listens on 8000): rolled back too. Its
  // image is pushed under its deployment's tag, a digest no release runs: it leaves the registry once the next
  // release went live.
  t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { dockerImage: CLUSTER_IMAGES.registry } })).status, 200);
  const { done: otherImage } = await deploy(s, svc.id);
  t.equal(otherImage.status, 'rolled_back', `another image that never passes its check: ${outcome(otherImage)}`);
  t.equal((await s.call('PATCH', `/api/services/${svc.id}`, { body: { dockerImage: TEST_IMAGES.web } })).status, 200);

  // A release that passes its checks and dies 30 s later, after Swarm's update is over and after Slipway was
  // restarted: the release watch, resumed at the start, sees its task fail and puts the previous release back.
  await s.call('POST', `/api/services/${svc.id}/env`, { body: { key: 'CRASH_AFTER_SECONDS', value: '30' } });
  const { done: crashing } = await deploy(s, svc.id);
  t.equal(outcome(crashing), 'succeeded', 'it goes live');
  await s.stopKeepingData();
  s = await startTestServer(env, dataDir);
  const watched = await eventually(
    async () => (await s.call('GET', `/api/services/${svc.id}/deployments`)).body.deployments as Record<string, any>[],
    // Both, however the two writes reach the read model.
    (list) => list.find((d) => d.id === crashing.id)?.status === 'rolled_back' && list.some((d) => d.kind === 'rollback' && d.trigger === 'auto'),
    120_000,
  );
  t.match(watched.find((d) => d.id === crashing.id)!.reason, /within 60 s of going live, its task slipway-s-[0-9a-f-]+\.\d failed on node \w+: .*non-zero exit \(3\)/, 'the watch names the task, its node and its exit');
  t.ok((await logLines(s, crashing.id)).some((l) => /Slipway restarted within the release's watch window; watching it until/.test(l)), 'by the watch resumed after the restart');
  const auto = watched.find((d) => d.kind === 'rollback' && d.trigger === 'auto');
  if (!auto) throw new Error(`no automatic rollback among the deployments: ${JSON.stringify(watched.map((d) => [d.id, d.kind, d.trigger, d.status]))}`);
  t.equal(auto.rollbackOf, v2.id, 'a rollback deployment to the release before');
  t.equal(outcome(await waitForDeployment(s, svc.id, auto.id, 180_000)), 'succeeded');
  await eventually(() => probe(svc.hostPort), (r) => r.body === 'v2', 10_000);
  const now = (await dockerOf(manager).getService(`slipway-s-${svc.id}`).inspect()).Spec.TaskTemplate.ContainerSpec.Env as string[];
  t.notOk(now.some((e) => e.startsWith('CRASH_AFTER_SECONDS=')), 'the tasks run the previous release’s variables');

  // Draining the worker moves its tasks to the manager, one healthy task before an old one goes.
  const workerId = (await dockerOf(worker).info()).Swarm.NodeID as string;
  load = steadyLoad(svc.hostPort, 'localhost', PATIENCE_MS);
  t.equal((await s.call('PATCH', `/api/cluster/nodes/${workerId}`, { body: { availability: 'drain' } })).status, 200);
  const drained = await waitFor('every task on the manager', () => tasksByNode(s, svc.id), (n) => n.node10 === 3 && n.node11 === 0, 120_000);
  await new Promise((r) => setTimeout(r, 2000));
  results = await load.stop();
  await loadReport('drain', results);
  t.same(drained, { node10: 3, node11: 0 }, 'all three tasks run on the manager');
  t.same(results.filter((r) => r.status !== 200), [], `0 failed requests of ${results.length} while the worker drained`);

  // The engine's DNS stops answering while its daemon is busy (frozen here for 7 s): the router holds the
  // requests until it answers again; none fails. A router that gave up after 5 s failed them (CI saw it).
  load = steadyLoad(svc.hostPort, 'localhost', PATIENCE_MS);
  await new Promise((r) => setTimeout(r, 1500));
  manager.pause();
  await new Promise((r) => setTimeout(r, 7000)).finally(() => manager.resume());
  await new Promise((r) => setTimeout(r, 1500));
  results = await load.stop();
  await loadReport('engine frozen 7 s', results);
  t.same(results.filter((r) => r.status !== 200), [], `0 failed requests of ${results.length} while the manager's engine (and its DNS) did not answer for 7 s`);
  t.ok(results.some((r) => r.ms > 5000), 'one waited out the stall');

  // Tasks gone behind Slipway's back (scaled down by hand here; a node lost elsewhere) show in health.
  const swarmService = dockerOf(manager).getService(`slipway-s-${svc.id}`);
  const info = await swarmService.inspect();
  await swarmService.update({ _query: { version: info.Version.Index }, _body: { ...info.Spec, Mode: { Replicated: { Replicas: 1 } } } });
  const short = await waitFor('health to see the missing tasks', async () => (await s.call('GET', '/api/health')).body, (h) => h.cluster?.servicesBelowReplicas?.length === 1, 60_000);
  t.equal(short.ok, false, 'the installation is not healthy');
  t.match(short.cluster.servicesBelowReplicas[0], { serviceId: svc.id, name: 'web', running: 1, replicas: 3 });
  t.match(short.cluster.detail, /web runs 1 of 3 tasks/);

  // Stopped on request: no task runs on any node and its routes say so; started, its replicas run again.
  const stopped = await s.call('POST', `/api/services/${svc.id}/stop`);
  t.equal(stopped.status, 200, JSON.stringify(stopped.body));
  await waitFor('no task left', () => tasksByNode(s, svc.id), (n) => n.node10 === 0 && n.node11 === 0, 60_000);
  t.equal((await swarmService.inspect()).Spec.Mode.Replicated.Replicas, 0, 'the Swarm service is scaled to none');
  t.equal((await probe(svc.hostPort)).status, 503, 'its host port answers that it is stopped');
  const restarted = await s.call('POST', `/api/services/${svc.id}/start`);
  t.equal(outcome(await waitForDeployment(s, svc.id, restarted.body.deployment.id, 180_000)), 'succeeded', 'started again');
  t.same(await tasksByNode(s, svc.id), { node10: 3, node11: 0 }, 'its 3 tasks run (the worker is still drained)');
  await eventually(() => probe(svc.hostPort), (r) => r.body === 'v2', 10_000);

  // The registry as stored on the manager: one tag per deployment that pushed. This image service's releases
  // are all one image, so the bad release's tag stays: its digest is a kept release's too.
  const stored = (script: string) => run('docker', ['-H', `unix://${manager.socket}`, 'exec', 'slipway-registry', 'sh', '-c', script]).then((r) => r.stdout.trim());
  const tagsDir = `/var/lib/registry/docker/registry/v2/repositories/slipway/${svc.id}/_manifests/tags`;
  const layers = () => stored('find /var/lib/registry/docker/registry/v2/blobs -name data | wc -l').then(Number);
  const tags = (await stored(`ls ${tagsDir}`)).split('\n');
  t.ok(tags.includes(bad.id) && tags.includes(v2.deploymentId), 'the registry keeps the tags whose image a kept release runs');
  t.notOk(tags.includes(otherImage.id), 'and not the tag of a deployment that ended without a release, on an image no release runs');
  const registryImageId = ((await dockerOf(manager).getImage(CLUSTER_IMAGES.registry).inspect()).Id as string).replace('sha256:', '');
  t.equal(await stored(`find /var/lib/registry/docker/registry/v2/blobs -path '*/${registryImageId}/data' | wc -l`), '0', 'whose layers the garbage collection deleted');
  t.ok((await layers()) > 0, 'the kept image’s layers stay');

  // Deleting the service removes its Swarm service (its tasks on every node) and its images in the registry;
  // deleting the project, its overlay.
  t.equal((await s.call('DELETE', `/api/services/${svc.id}`)).status, 200);
  const gone = (p: Promise<unknown>) => p.then(() => false, (e: { statusCode?: number }) => e.statusCode === 404);
  await waitFor('the Swarm service to go', () => gone(swarmService.inspect()), Boolean, 60_000);
  t.pass('the Swarm service is gone');
  t.equal(await waitFor('the registry to be emptied', layers, (n) => n === 0, 60_000), 0, 'no layer is left in the registry after its garbage collection');
  t.equal(await stored(`ls ${tagsDir} 2>/dev/null | wc -l`), '0', 'nor any tag of the service');
  t.equal((await s.call('DELETE', `/api/projects/${project.id}`)).status, 200);
  await waitFor('the overlay to go', () => gone(dockerOf(manager).getNetwork(`slipway-o-${project.id}`).inspect()), Boolean, 60_000);
  t.pass('the project’s overlay is gone');
});
