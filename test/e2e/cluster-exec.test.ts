import t from 'tap';
import { swarmExecTarget } from '../../src/cluster/swarm-exec-target.js';
import { openShellIn } from '../../src/runtime/docker-shell.js';
import { clusterUnavailable, dockerOf, startNodes } from '../helpers/cluster.js';
import { requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { waitFor } from '../helpers/net.js';

// Node index of this file's engine: other cluster files use theirs at the same time.
const NODE = 29;

t.setTimeout(300_000);

t.test('a terminal into a Swarm service: a running task on the manager’s own engine', { skip: (await requireDocker()) || (await clusterUnavailable()) }, async (t) => {
  const cluster = await startNodes([NODE], [TEST_IMAGES.web]);
  t.teardown(() => cluster.stop());
  const docker = dockerOf(cluster.nodes[0]!);
  await docker.swarmInit({ ListenAddr: '0.0.0.0:2377', AdvertiseAddr: cluster.nodes[0]!.address });
  t.equal(await swarmExecTarget(docker, 'slipway-exec-web', undefined), null, 'no service, no task: nothing to open');
  await docker.createService({
    Name: 'slipway-exec-web',
    TaskTemplate: { ContainerSpec: { Image: TEST_IMAGES.web } },
    Mode: { Replicated: { Replicas: 2 } },
  });
  const target = await waitFor('a running task', () => swarmExecTarget(docker, 'slipway-exec-web', undefined), (x) => x !== null, 120_000);
  t.equal(target!.nodeId, null, 'a task on the manager itself is opened on this server’s own engine');
  const again = await swarmExecTarget(docker, 'slipway-exec-web', target!.taskId.slice(0, 12));
  t.equal(again?.containerId, target!.containerId, 'a task named by the start of its id');
  t.equal(await swarmExecTarget(docker, 'slipway-exec-web', 'nosuchtask'), null, 'an unknown task is none');
  const shell = await openShellIn(docker, target!.containerId, { cmd: ['sh', '-c', 'echo "in $(hostname)"; exit 5'], tty: false });
  let out = '';
  for await (const part of shell.output) out += part.data.toString('utf8');
  t.match(out, /^in [0-9a-f]{12}\n$/, 'the command ran in the task’s container');
  t.equal(await shell.exitCode(), 5);
});
