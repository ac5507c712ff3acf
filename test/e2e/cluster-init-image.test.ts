import { rmSync } from 'node:fs';
import t from 'tap';
import { CLUSTER_IMAGES, clusterEnv, clusterUnavailable, dockerOf, startNodes } from '../helpers/cluster.js';
import { requireDocker } from '../helpers/docker.js';
import { startTestServer } from '../helpers/test-server.js';

const REGISTRY_PORT = 5443;
// This file's engine: other cluster files use other indices at the same time.
const NODE = 20;
const MISSING = 'slipway/no-such-registry:missing';

t.setTimeout(300_000);

t.test('cluster: init with a registry image the engine has not and cannot pull answers 502 image_unavailable and changes nothing', { skip: (await requireDocker()) || (await clusterUnavailable()) }, async (t) => {
  const cluster = await startNodes([NODE], []);
  t.teardown(() => cluster.stop());
  const [node] = cluster.nodes as [(typeof cluster.nodes)[0]];
  const docker = dockerOf(node);
  // The node's engine has no image and its name server refuses: the pull fails at once.
  await t.rejects(docker.getImage(MISSING).inspect(), 'the image is not on the engine');
  const s = await startTestServer({ ...clusterEnv(node, REGISTRY_PORT), SLIPWAY_CLUSTER_REGISTRY_IMAGE: MISSING });
  t.teardown(async () => {
    await s.close();
    rmSync(s.dataDir, { recursive: true, force: true });
  });

  const init = await s.call('POST', '/api/cluster', { body: { advertiseAddress: node.address } });
  t.equal(init.status, 502, JSON.stringify(init.body));
  t.equal(init.body.error?.code, 'image_unavailable');
  const message = String(init.body.error?.message);
  t.match(message, `The cluster's registry needs the image ${MISSING}, which is not on the manager's engine and could not be pulled (`, 'it names the image');
  t.notMatch(message, 'HTTP code', 'in the engine’s words');
  t.match(message, 'SLIPWAY_CLUSTER_REGISTRY_IMAGE (default registry:2)', 'the setting that replaces it');
  t.match(message, '`npm run images -- cluster-registry`', 'and the command that builds the local stand-in');
  t.match(message, `SLIPWAY_CLUSTER_REGISTRY_IMAGE=${CLUSTER_IMAGES.registry}`, 'with the stand-in’s name');

  t.same((await s.call('GET', '/api/cluster')).body, { cluster: null }, 'no cluster is recorded');
  t.equal((await docker.info()).Swarm.LocalNodeState, 'inactive', 'the engine did not become a Swarm');
  t.same(await docker.listContainers({ all: true, filters: { name: ['slipway-registry'] } }), [], 'no registry container was made');
  t.equal(((await s.call('GET', '/api/events?type=ClusterInitialized')).body.events as unknown[]).length, 0, 'no event');
});
