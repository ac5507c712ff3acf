import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import t from 'tap';
import { CLUSTER_IMAGES, clusterEnv, clusterUnavailable, dockerOf, startNodes } from '../helpers/cluster.js';
import { createKey, createProject } from '../helpers/api-suite.js';
import { requireDocker } from '../helpers/docker.js';
import { startReceiver } from '../helpers/notification-receivers.js';
import { destinationOf } from '../helpers/outbound.js';
import { waitFor } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';

const run = promisify(execFile);
const REGISTRY_PORT = 5443;

t.setTimeout(300_000);

t.test('cluster: init with a registry, join a node with the command shown, label, drain and remove it', { skip: (await requireDocker()) || (await clusterUnavailable()) }, async (t) => {
  const cluster = await startNodes([1, 2], [CLUSTER_IMAGES.registry]);
  t.teardown(() => cluster.stop());
  const [manager, worker] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const s = await startTestServer({ ...clusterEnv(manager, REGISTRY_PORT), SLIPWAY_ALLOW_DESTINATIONS: destinationOf(receiver.url) });
  t.teardown(() => s.close());

  t.same((await s.call('GET', '/api/cluster')).body, { cluster: null }, 'a single server is not a cluster');
  t.equal((await s.call('GET', '/api/cluster/nodes')).status, 409, 'no nodes to list before init');
  t.equal((await s.call('POST', '/api/cluster/nodes', { body: {} })).status, 409, 'no join command before init');

  const project = await createProject(s, 'Cluster');
  const scoped = await createKey(s, 'write', [project.id]);
  const reader = await createKey(s, 'read', null);
  t.equal((await s.call('POST', '/api/cluster', { body: {}, key: scoped.secret })).status, 403, 'a project-scoped key cannot make a cluster');
  t.equal((await s.call('POST', '/api/cluster', { body: {}, key: reader.secret })).status, 403, 'nor can a read-only key');
  t.equal((await s.call('GET', '/api/cluster', { key: scoped.secret })).status, 403, 'nor see it');
  t.equal((await s.call('POST', '/api/cluster', { body: { advertiseAddress: '$(reboot)' } })).status, 400, 'an address is an address');
  t.equal((await s.call('POST', '/api/cluster', { body: { port: 1 } })).status, 400, 'unknown fields are refused');

  const registry = `${manager.address}:${REGISTRY_PORT}`;
  cluster.trusts(registry);
  const init = await s.call('POST', '/api/cluster', { body: { advertiseAddress: manager.address } });
  t.equal(init.status, 200, JSON.stringify(init.body));
  t.match(init.body.cluster, { advertiseAddress: manager.address, registry, joinCommandsIssued: 0, lastJoinCommandAt: null });
  const info = await dockerOf(manager).info();
  t.equal(info.Swarm.LocalNodeState, 'active', 'the engine is a Swarm');
  t.equal(init.body.cluster.managerNodeId, info.Swarm.NodeID, 'managed by this node');
  t.equal((await s.call('POST', '/api/cluster', { body: {} })).status, 409, 'a second init is refused');

  // The registry answers over TLS from the installation's CA, and only with its password.
  const caPem = readFileSync(`/etc/docker/certs.d/${registry}/ca.crt`, 'utf8');
  t.match(caPem, /BEGIN CERTIFICATE/, 'the manager trusts the registry’s CA');
  const { stdout: anonymous } = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '--cacert', `/etc/docker/certs.d/${registry}/ca.crt`, `https://${registry}/v2/`]);
  t.equal(anonymous, '401', 'the registry wants credentials');
  const { stdout: untrusted } = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', `https://${registry}/v2/`]).catch((e: { stdout: string }) => e);
  t.equal(untrusted, '000', 'and a client without the CA does not trust it');

  const first = await s.call('POST', '/api/cluster/nodes', { body: {} });
  t.equal(first.status, 200, JSON.stringify(first.body));
  const join = await s.call('POST', '/api/cluster/nodes', { body: { role: 'worker' } });
  t.not(join.body.token, first.body.token, 'each join command rotates the token');
  t.match(join.body, { role: 'worker', managerAddress: manager.address, registry, registryCaPem: caPem });
  t.match(join.body.joinCommand, new RegExp(`docker swarm join --token ${join.body.token} ${manager.address.replace(/\./g, '\\.')}:2377$`));
  t.equal((await s.call('POST', '/api/cluster/nodes', { body: { role: 'boss' } })).status, 400);
  t.match((await s.call('GET', '/api/cluster')).body.cluster, { joinCommandsIssued: 2 }, 'each command issued is counted');

  // The node's administrator runs the command as shown; DOCKER_HOST points its `docker` at the node's engine.
  const joinedAt = Date.now();
  await run('sh', ['-c', join.body.joinCommand], { env: { ...process.env, DOCKER_HOST: `unix://${worker.socket}` }, timeout: 60_000 });
  t.comment(`the node joined in ${Date.now() - joinedAt} ms`);
  const nodes = await waitFor(
    'two ready nodes',
    async () => (await s.call('GET', '/api/cluster/nodes')).body.nodes as Record<string, any>[],
    (list) => list?.length === 2 && list.every((n) => n.state === 'ready'),
  );
  t.match(nodes[0], { role: 'manager', leader: true, availability: 'active', address: manager.address, hostname: 'node1' }, 'the manager first');
  t.match(nodes[1], { role: 'worker', leader: false, availability: 'active', address: worker.address, hostname: 'node2', labels: {} });
  t.ok(nodes[1]!.cpus > 0 && nodes[1]!.memoryBytes > 0, 'with its CPUs and memory');
  t.same(nodes[1]!.tasks, [], 'and nothing running yet');
  const workerId = nodes[1]!.id as string;

  const labelled = await s.call('PATCH', `/api/cluster/nodes/${workerId}`, { body: { labels: { zone: 'b', disk: 'ssd' } } });
  t.equal(labelled.status, 200, JSON.stringify(labelled.body));
  t.same(labelled.body.node.labels, { zone: 'b', disk: 'ssd' }, 'labels set');
  t.same((await dockerOf(manager).getNode(workerId).inspect()).Spec.Labels, { zone: 'b', disk: 'ssd' }, 'in Swarm');
  t.equal((await s.call('PATCH', `/api/cluster/nodes/${workerId}`, { body: { labels: { 'Bad Label': 'x' } } })).status, 400, 'a label name Swarm constraints cannot match is refused');
  t.equal((await s.call('PATCH', `/api/cluster/nodes/${workerId}`, { body: {} })).status, 400, 'an empty change is refused');
  t.equal((await s.call('PATCH', `/api/cluster/nodes/${workerId}`, { body: { availability: 'gone' } })).status, 400);
  t.equal((await s.call('PATCH', '/api/cluster/nodes/nope', { body: { availability: 'drain' } })).status, 404, 'an unknown node is 404');
  const managerDrain = await s.call('PATCH', `/api/cluster/nodes/${nodes[0]!.id}`, { body: { availability: 'drain' } });
  t.equal(managerDrain.status, 409, 'the manager is never drained');
  t.equal((await dockerOf(manager).getNode(nodes[0]!.id).inspect()).Spec.Availability, 'active', 'and Swarm was not told');
  t.equal((await s.call('PATCH', `/api/cluster/nodes/${workerId}`, { body: { availability: 'drain' }, key: scoped.secret })).status, 403, 'a project-scoped key cannot drain a node');

  t.equal((await s.call('DELETE', `/api/cluster/nodes/${workerId}`)).status, 409, 'an active node cannot be removed');
  const drained = await s.call('PATCH', `/api/cluster/nodes/${workerId}`, { body: { availability: 'drain' } });
  t.match(drained.body.node, { availability: 'drain', labels: { zone: 'b', disk: 'ssd' } }, 'drained, its labels kept');
  const stillUp = await s.call('DELETE', `/api/cluster/nodes/${workerId}`);
  t.equal(stillUp.status, 409, 'a node still up cannot be removed');
  t.match(stillUp.body.error.message, /docker swarm leave/);

  const project2 = await createProject(s, 'Elsewhere');
  const ops = await s.call('POST', '/api/notification-channels', { body: { name: 'ops', type: 'webhook', config: { url: `${receiver.url}/ops` }, events: ['node.down'] } });
  const team = await s.call('POST', '/api/notification-channels', { body: { name: 'team', type: 'webhook', config: { url: `${receiver.url}/team` }, events: ['node.down'], projectIds: [project2.id] } });
  t.equal(ops.status, 200, JSON.stringify(ops.body));
  t.equal(team.status, 200, JSON.stringify(team.body));
  await dockerOf(worker).swarmLeave({});
  await waitFor('the node to be down', async () => (await s.call('GET', '/api/cluster/nodes')).body.nodes as Record<string, any>[], (list) => list.find((n) => n.id === workerId)?.state === 'down', 60_000);
  const health = (await s.call('GET', '/api/health')).body;
  t.equal(health.ok, false, 'a node down makes the installation unhealthy');
  t.match(health.cluster, { ok: false, nodesDown: [{ id: workerId, hostname: 'node2', state: 'down', availability: 'drain' }] }, 'and health names it');
  const [told] = await receiver.waitFor(1, '/ops', 30_000);
  t.match(JSON.parse(told!.body), { event: 'node.down', project: null, service: null, reason: /node node2 \(100\.115\.0\.12\) is down/, links: { nodes: /\/installation$/ }, apiLinks: { nodes: /\/api\/cluster\/nodes$/ } }, 'node.down is told to a channel of every project');
  t.same(receiver.received.filter((r) => r.path === '/team'), [], 'not to a channel of some projects: a node is no project’s');
  const removed = await s.call('DELETE', `/api/cluster/nodes/${workerId}`);
  t.equal(removed.status, 200, JSON.stringify(removed.body));
  t.same(((await s.call('GET', '/api/cluster/nodes')).body.nodes as Record<string, any>[]).map((n) => n.role), ['manager'], 'only the manager is left');

  const audit = (await s.call('GET', '/api/events?limit=100')).body.events as Record<string, any>[];
  const types = audit.map((e) => e.type).filter((type: string) => type.startsWith('Cluster'));
  t.same(types.sort(), ['ClusterInitialized', 'ClusterJoinCommandIssued', 'ClusterJoinCommandIssued', 'ClusterNodeChanged', 'ClusterNodeChanged', 'ClusterNodeWentDown', 'ClusterNodeRemoved'].sort(), 'every decision and what Swarm saw is in the history');
  t.notMatch(JSON.stringify(audit), new RegExp(join.body.token), 'and no join token is');
});
