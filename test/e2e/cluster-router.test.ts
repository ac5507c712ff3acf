import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { connectRouterToOverlays, ensureRouter, ROUTER_CONTAINER, ROUTER_NETWORK } from '../../src/cluster/cluster-router.js';
import { ensureOverlay } from '../../src/cluster/swarm-updates.js';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { CLUSTER_IMAGES, clusterUnavailable, dockerOf, startNodes } from '../helpers/cluster.js';
import { requireDocker } from '../helpers/docker.js';

// Node index of this file's engine: other cluster files use theirs at the same time.
const NODE = 5;
const run = promisify(execFile);

t.setTimeout(300_000);

t.test('the cluster router: kept while its config holds, replaced when it changes, on every project overlay', { skip: (await requireDocker()) || (await clusterUnavailable()) }, async (t) => {
  const cluster = await startNodes([NODE], [CLUSTER_IMAGES.proxy]);
  t.teardown(() => cluster.stop());
  const docker = dockerOf(cluster.nodes[0]!);
  await docker.swarmInit({ ListenAddr: '0.0.0.0:2377', AdvertiseAddr: cluster.nodes[0]!.address });
  const overlays = ['slipway-o-a', 'slipway-o-b'];
  for (const [i, name] of overlays.entries()) await ensureOverlay(docker, name, { [LABEL.project]: `p${i}` });
  await ensureOverlay(docker, 'not-slipways');

  const options = { image: CLUSTER_IMAGES.proxy, bind: { host: '127.0.0.1', port: 7080 }, key: 'a'.repeat(64) };
  const networksOf = async () => Object.keys((await docker.getContainer(ROUTER_CONTAINER).inspect()).NetworkSettings.Networks ?? {}).sort();
  await ensureRouter(docker, options);
  const first = await docker.getContainer(ROUTER_CONTAINER).inspect();
  t.ok(first.State.Running, 'the router runs');
  t.notMatch(JSON.stringify(first.Config), options.key, 'its key shows nowhere in docker inspect');
  const resolvConf = await run('docker', ['-H', `unix://${cluster.nodes[0]!.socket}`, 'exec', ROUTER_CONTAINER, 'cat', '/etc/resolv.conf']);
  t.match(resolvConf.stdout, /^options .*timeout:1/m, 'a late answer of the engine’s DNS is asked again after 1 s');
  // Caddy reads resolv.conf as it starts and keeps it for its first 5 s of lookups: it must name the engine's
  // DNS already, before the router joins any overlay (the first request after a first deployment waited 5 s).
  t.match(resolvConf.stdout, /^nameserver 127\.0\.0\.11$/m, 'it starts with the engine’s DNS, on a network of its own');
  await connectRouterToOverlays(docker);
  t.same(await networksOf(), [...overlays, ROUTER_NETWORK].sort(), 'on every project overlay and its own network, and on no other');

  await ensureRouter(docker, options);
  t.equal((await docker.getContainer(ROUTER_CONTAINER).inspect()).Id, first.Id, 'the same config keeps the container');

  await ensureRouter(docker, { ...options, key: 'b'.repeat(64) });
  const second = await docker.getContainer(ROUTER_CONTAINER).inspect();
  t.not(second.Id, first.Id, 'a new key replaces it');
  t.same(await networksOf(), [ROUTER_NETWORK], 'a new container starts on no overlay');
  await connectRouterToOverlays(docker);
  t.same(await networksOf(), [...overlays, ROUTER_NETWORK].sort(), 'and is put back on every project’s, not only the deploying one’s');
  await connectRouterToOverlays(docker);
  t.same(await networksOf(), [...overlays, ROUTER_NETWORK].sort(), 'again: nothing to do');
});
