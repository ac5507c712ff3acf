import t, { type Test } from 'tap';
import { runAdminCommand } from '../../src/cli/admin-commands.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { dumpReadModels } from '../helpers/read-models.js';
import { ON_PGLITE, startTestServer } from '../helpers/test-server.js';

// Read models are written as SQL texts with the values written in; these are the sequences a string
// replacement would read as patterns instead of text.
const TRICKY = ["a$&b", "c$'d", 'e$`f', 'g$$h', 'i$1j', "it's \\ \"quoted\""];

async function valuesSurvive(t: Test, env: Record<string, string>) {
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const created = [];
  for (const [i, text] of TRICKY.entries()) {
    const r = await s.call('POST', '/api/projects', { body: { name: `Tricky ${i} ${text}`, description: text } });
    t.equal(r.status, 200, `created: ${text}`);
    created.push(r.body.project);
  }
  for (const [i, text] of TRICKY.entries()) {
    const { body } = await s.call('GET', `/api/projects/${created[i].id}`);
    t.equal(body.project.description, text, `the description reads back as written: ${text}`);
    t.equal(body.project.name, `Tricky ${i} ${text}`, `the name reads back as written: ${text}`);
  }
  const live = await dumpReadModels(s.app.db);
  await runAdminCommand(s.app, { command: 'projections.rebuild', projectors: [] });
  const rebuilt = await dumpReadModels(s.app.db);
  for (const table of Object.keys(live)) t.same(rebuilt[table], live[table], `${table}: rebuilt equals live`);
}

t.test('PGlite', (t) => valuesSurvive(t, ON_PGLITE));

t.test('Postgres server', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  await valuesSurvive(t, { DATABASE_URL: db.url });
});
