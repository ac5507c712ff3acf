import t, { type Test } from 'tap';
import { clusterEvents } from '../../commands/cluster/events.js';
import { ALL_EVENT_TYPES } from '../../commands/event-types.js';
import { deployEnv } from '../helpers/deploy.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { runDeploymentHistory, runMixedScenario, startHistoryProviders } from '../helpers/mixed-scenario.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { dumpReadModels } from '../helpers/read-models.js';
import { rebuildEquals, recordedTypes } from '../helpers/rebuild-check.js';
import { ON_PGLITE, startTestServer } from '../helpers/test-server.js';

// The cluster's history needs Swarm engines of its own: e2e/cluster-rebuild.test.ts, and cluster-database.test.ts for a
// database's move.
const CLUSTER_TYPES: readonly string[] = [...Object.keys(clusterEvents), 'ServiceMoved'];

// Two long histories, each built with real deployments and rebuilt: about 80 s each alone, 160 s under a loaded suite.
t.setTimeout(480_000);

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
  // Draining earlier containers still writes log lines after a deployment has ended: let the deployer finish.
  await s.app.deployer?.stop();

  const types = await recordedTypes(s);
  const outside = ALL_EVENT_TYPES.filter((type) => !CLUSTER_TYPES.includes(type));
  t.same(outside.filter((type) => !types.has(type)), [], `the history holds every one of the ${outside.length} event types (the cluster's: e2e/cluster-rebuild.test.ts, cluster-database.test.ts)`);
  const live = await dumpReadModels(s.app.db);
  t.ok(live.rm_services!.length > 10 && live.rm_env!.length > 20 && live.rm_audit_log!.length > 200, 'a long history');
  await rebuildEquals(t, s);
}

t.test('PGlite', { skip: (await requireDocker()) || (await requireDbImages()) }, (t) => rebuildEqualsLive(t, ON_PGLITE));

t.test('Postgres server', { skip: requirePostgresServer() || (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  await rebuildEqualsLive(t, { DATABASE_URL: db.url });
});
