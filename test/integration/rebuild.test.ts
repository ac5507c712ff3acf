import t, { type Test } from 'tap';
import { runAdminCommand } from '../../src/cli/admin-commands.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { runMixedScenario } from '../helpers/mixed-scenario.js';
import { dumpReadModels } from '../helpers/read-models.js';
import { startTestServer } from '../helpers/test-server.js';

async function rebuildEqualsLive(t: Test, env: Record<string, string>) {
  // No engine (the test server's default): every deployment fails at once, lifecycle and log included.
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  await runMixedScenario(s);
  const live = await dumpReadModels(s.app.db);
  const listBefore = (await s.call('GET', '/api/projects')).body;
  t.ok(live.rm_services!.length > 10 && live.rm_env!.length > 20 && live.rm_audit_log!.length > 200, 'a long history');
  t.ok(live.rm_deployments!.length >= 4 && live.rm_deployment_logs!.length >= 8, 'with deployments and their logs');
  const result = (await runAdminCommand(s.app, { command: 'projections.rebuild' })) as { events: number };
  t.equal(result.events, live.rm_audit_log!.length, 'every event replayed');
  const rebuilt = await dumpReadModels(s.app.db);
  t.same(rebuilt, live, 'rebuilt read models equal the live ones');
  const after = await s.call('GET', '/api/projects');
  t.same(after.body, listBefore, 'and the API answers the same from them');
}

t.test('PGlite', (t) => rebuildEqualsLive(t, {}));

t.test('Postgres server', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  await rebuildEqualsLive(t, { DATABASE_URL: db.url });
});
