import t, { type Test } from 'tap';
import { ALL_EVENT_TYPES } from '../../commands/event-types.js';
import { ALL_PROJECTORS } from '../../projections/all.js';
import { runAdminCommand } from '../../src/cli/admin-commands.js';
import { deployEnv } from '../helpers/deploy.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { runDeploymentHistory, runMixedScenario, startHistoryProviders } from '../helpers/mixed-scenario.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { dumpReadModels } from '../helpers/read-models.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

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
  t.same(ALL_EVENT_TYPES.filter((type) => !types.has(type)), [], `the history holds every one of the ${ALL_EVENT_TYPES.length} event types`);

  const tables = await readTables(s);
  t.same(tables, ALL_PROJECTORS.flatMap((p) => p.tables).sort(), 'every read table belongs to a projector, and is compared');
  const live = await dumpReadModels(s.app.db);
  const liveCheckpoints = await checkpoints(s);
  const listBefore = (await s.call('GET', '/api/projects')).body;
  t.ok(live.rm_services!.length > 10 && live.rm_env!.length > 20 && live.rm_audit_log!.length > 200, 'a long history');
  t.equal(liveCheckpoints.length, ALL_PROJECTORS.length, 'a checkpoint per projector');

  const result = (await runAdminCommand(s.app, { command: 'projections.rebuild', projectors: [] })) as { events: number };
  t.equal(result.events, live.rm_audit_log!.length, 'every event replayed');
  t.same(await readTables(s), tables, 'the same tables');
  for (const table of tables) t.same((await dumpReadModels(s.app.db))[table], live[table], `${table}: rebuilt equals live`);
  t.same(await checkpoints(s), liveCheckpoints, 'the checkpoints equal the live ones');
  const after = await s.call('GET', '/api/projects');
  t.same(after.body, listBefore, 'and the API answers the same from them');
}

t.test('PGlite', { skip: (await requireDocker()) || (await requireDbImages()) }, (t) => rebuildEqualsLive(t, {}));

t.test('Postgres server', { skip: requirePostgresServer() || (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  await rebuildEqualsLive(t, { DATABASE_URL: db.url });
});
