import t, { type Test } from 'tap';
import { clusterEvents } from '../../commands/cluster/events.js';
import { CLUSTER_IMAGES, clusterEnv, clusterUnavailable, runClusterHistory, startNodes } from '../helpers/cluster.js';
import { requireDocker } from '../helpers/docker.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { dumpReadModels } from '../helpers/read-models.js';
import { rebuildEquals, recordedTypes } from '../helpers/rebuild-check.js';
import type { SwarmNode } from '../helpers/swarm-nodes.js';
import { ON_PGLITE, startTestServer } from '../helpers/test-server.js';

const CLUSTER_TYPES: readonly string[] = Object.keys(clusterEvents);
const REGISTRY_PORT = 5443;

t.setTimeout(600_000);

/** A cluster needs a Slipway whose engine is a Swarm manager: two engines in namespaces, never the host's. */
async function clusterRebuildEqualsLive(t: Test, env: Record<string, string>) {
  const cluster = await startNodes([7, 8], [CLUSTER_IMAGES.registry]);
  t.teardown(() => cluster.stop());
  const [manager, worker] = cluster.nodes as [SwarmNode, SwarmNode];
  cluster.trusts(`${manager.address}:${REGISTRY_PORT}`);
  const s = await startTestServer({ ...clusterEnv(manager, REGISTRY_PORT), ...env });
  t.teardown(() => s.close());
  await runClusterHistory(s, manager, worker);
  const types = await recordedTypes(s);
  t.same(CLUSTER_TYPES.filter((type) => !types.has(type)), [], `the history holds every one of the ${CLUSTER_TYPES.length} cluster event types`);
  t.ok((await dumpReadModels(s.app.db)).rm_cluster!.length === 1, 'a cluster');
  await rebuildEquals(t, s);
}


t.test('a cluster, PGlite', { skip: (await requireDocker()) || (await clusterUnavailable()) }, (t) => clusterRebuildEqualsLive(t, ON_PGLITE));

t.test('a cluster, Postgres server', { skip: requirePostgresServer() || (await requireDocker()) || (await clusterUnavailable()) }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  await clusterRebuildEqualsLive(t, { DATABASE_URL: db.url });
});
