import t, { type Test } from 'tap';
import { clusterEvents } from '../../commands/cluster/events.js';
import { ALL_EVENT_TYPES } from '../../commands/event-types.js';
import { ALL_PROJECTORS } from '../../projections/all.js';
import { runAdminCommand } from '../../src/cli/admin-commands.js';
import { CLUSTER_IMAGES, clusterEnv, clusterUnavailable, runClusterHistory, startNodes } from '../helpers/cluster.js';
import { deployEnv } from '../helpers/deploy.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { runDeploymentHistory, runMixedScenario, startHistoryProviders } from '../helpers/mixed-scenario.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { dumpReadModels } from '../helpers/read-models.js';
import type { SwarmNode } from '../helpers/swarm-nodes.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const CLUSTER_TYPES: readonly string[] = Object.keys(clusterEvents);
const REGISTRY_PORT = 5443;

async function recordedTypes(s: TestServer): Promise<Set<string>> {
  const types = new Set<string>();
  for (let after: string | null = null; ; ) {
    const batch = await s.app.store.readAll({ after, maxCount: 1000 });
    if (batch.length === 0) return types;
    for (const e of batch) types.add(e.type);
    after = batch[batch.length - 1]!.position;
  }
}

async function readTables(s: TestServer): Promise<string[]> {
  const { rows } = await s.app.db.query<{ table_name: string }>(
    "select table_name from information_schema.tables where table_schema = current_schema() and table_name like 'rm\\_%' order by 1",
  );
  return rows.map((r) => r.table_name);
}

const checkpoints = async (s: TestServer) =>
  (await s.app.db.query('select projector, version, position from proj_checkpoints order by projector')).rows;

async function rebuildEqualsLive(t: Test, env: Record<string, string>) {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const providers = await startHistoryProviders();
  t.teardown(() => providers.close());
  // The real engine, one deployment at a time (so that queued ones are superseded); no proxy is needed.
  const { env: engine } = await deployEnv({ SLIPWAY_PROXY: 'off', SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_DEPLOY_CONCURRENCY: '1', ...DB_IMAGE_ENV, ...providers.env, ...env });
  const s = await startTestServer(engine);
  t.teardown(() => s.close());
  await runMixedScenario(s);
  const deploys = await runDeploymentHistory(s, git, providers);
  t.teardown(() => removeProjectLeftovers(deploys.id));
  // Retiring earlier containers still writes log lines after a deployment has ended: let the deployer finish.
  await s.app.deployer?.stop();

  const types = await recordedTypes(s);
  const outside = ALL_EVENT_TYPES.filter((type) => !CLUSTER_TYPES.includes(type));
  t.same(outside.filter((type) => !types.has(type)), [], `the history holds every one of the ${outside.length} event types (the cluster's: its own round)`);
  const live = await dumpReadModels(s.app.db);
  t.ok(live.rm_services!.length > 10 && live.rm_env!.length > 20 && live.rm_audit_log!.length > 200, 'a long history');
  await rebuildEquals(t, s);
}

/** Rebuilds every read model from the log and compares each table, the checkpoints and an API answer with the live ones. */
async function rebuildEquals(t: Test, s: TestServer) {
  const tables = await readTables(s);
  t.same(tables, ALL_PROJECTORS.flatMap((p) => p.tables).sort(), 'every read table belongs to a projector, and is compared');
  const live = await dumpReadModels(s.app.db);
  const liveCheckpoints = await checkpoints(s);
  const listBefore = (await s.call('GET', '/api/projects')).body;
  t.equal(liveCheckpoints.length, ALL_PROJECTORS.length, 'a checkpoint per projector');

  const result = (await runAdminCommand(s.app, { command: 'projections.rebuild', projectors: [] })) as { events: number };
  t.equal(result.events, live.rm_audit_log!.length, 'every event replayed');
  t.same(await readTables(s), tables, 'the same tables');
  for (const table of tables) t.same((await dumpReadModels(s.app.db))[table], live[table], `${table}: rebuilt equals live`);
  t.same(await checkpoints(s), liveCheckpoints, 'the checkpoints equal the live ones');
  const after = await s.call('GET', '/api/projects');
  t.same(after.body, listBefore, 'and the API answers the same from them');
}

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

t.test('PGlite', { skip: (await requireDocker()) || (await requireDbImages()) }, (t) => rebuildEqualsLive(t, {}));

t.test('Postgres server', { skip: requirePostgresServer() || (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  await rebuildEqualsLive(t, { DATABASE_URL: db.url });
});

t.test('a cluster, PGlite', { skip: (await requireDocker()) || (await clusterUnavailable()) }, (t) => clusterRebuildEqualsLive(t, {}));

t.test('a cluster, Postgres server', { skip: requirePostgresServer() || (await requireDocker()) || (await clusterUnavailable()) }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  await clusterRebuildEqualsLive(t, { DATABASE_URL: db.url });
});
