import { existsSync, readFileSync, statSync } from 'node:fs';
import t from 'tap';
import { createKeyring } from '../../src/secrets/keyring.js';
import { loadMasterKey } from '../../src/secrets/master-key.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, logLines, waitForDeployment } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker, TEST_IMAGES } from '../helpers/docker.js';
import { gitProcessesOf } from '../helpers/git-processes.js';
import { startGitServer } from '../helpers/git-server.js';
import { eventually } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';

const TOKEN = 'ghp_vaultTokenNeverShown4711';
const API_KEY = 'sk_live_apiKeyValueNeverShown';
const SHORT_SECRET = 'pw-9931';
const DB_PASSWORD = 'database-password-never-shown';

/** Every form in which a secret could give itself away: as written, and base64 (as a Basic header carries it). */
const formsOf = (secret: string) => [
  secret,
  Buffer.from(secret).toString('base64'),
  Buffer.from(`x-access-token:${secret}`).toString('base64'),
];

const app = `import http.server, os
print("api key " + os.environ["API_KEY"] + " and " + os.environ["STRIPE_SECRET"], flush=True)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"vault")
http.server.HTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()
`;

t.test('secrets stay secret through real deployments, and deleting a project shreds them', { skip: await requireDocker() }, async (t) => {
  const git = await startGitServer({ 'acme/vault': TOKEN });
  t.teardown(() => git.close());
  git.push('acme/vault', { Dockerfile: `FROM ${TEST_IMAGES.python}\nCOPY app.py .\nCMD ["python3", "-u", "app.py"]\n`, 'app.py': app });
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, SLIPWAY_LOG: 'json' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const p = await createProject(s, 'Vault');
  t.teardown(() => removeProjectLeftovers(p.id));
  const db = await createService(s, p.id, {
    name: 'db',
    repoFullName: 'database:postgres',
    repoUrl: 'database',
    branch: 'main',
    internalPort: 5432,
    databasePublicEnabled: false,
    env: [{ key: 'POSTGRES_PASSWORD', value: DB_PASSWORD }],
  });
  const svc = await createService(s, p.id, {
    name: 'vault',
    repoFullName: 'acme/vault',
    branch: 'main',
    internalPort: 8080,
    gitToken: TOKEN,
    env: [
      { key: 'API_KEY', value: API_KEY },
      { key: 'STRIPE_SECRET', value: SHORT_SECRET },
      { key: 'DATABASE_URL', value: '${db.DATABASE_URL}' },
    ],
  });
  const secrets = [TOKEN, API_KEY, SHORT_SECRET, DB_PASSWORD];

  await t.test('the git process carries the token neither in its arguments nor in its environment', async (t) => {
    const release = git.hold('acme/vault');
    // Released below once looked at; at the latest when this test ends, so nothing after it waits on the clone.
    t.teardown(release);
    const queued = (await s.call('POST', `/api/services/${svc.id}/deployments`)).body.deployment;
    const url = `${git.baseUrl}/acme/vault`;
    const processes = await eventually(async () => gitProcessesOf(url), (found) => found.size > 0 && git.held('acme/vault') > 0, 30_000);
    t.ok(processes.size > 0, `git is running: ${[...processes.values()].join(' | ')}`);
    let includedFile: string | null = null;
    for (const [pid, args] of processes) {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`).toString().replace(/\0/g, ' ');
      const environ = readFileSync(`/proc/${pid}/environ`).toString().split('\0');
      for (const form of formsOf(TOKEN)) {
        t.notMatch(cmdline, form, `not in the arguments of ${args}`);
        t.notOk(environ.some((v) => v.includes(form)), `not in the environment of ${args}`);
      }
      includedFile ??= environ.find((v) => v.startsWith('GIT_CONFIG_VALUE_0='))?.slice('GIT_CONFIG_VALUE_0='.length) ?? null;
    }
    t.match(includedFile, /\/builds\/[0-9a-f-]{36}\/git-credentials\.config$/, 'git reads the header from a config file it is told to include');
    t.equal(includedFile && existsSync(includedFile) ? statSync(includedFile).mode & 0o777 : null, 0o600, 'which only its owner may read');
    release();
    const done = await waitForDeployment(s, svc.id, queued.id);
    t.equal(done.status, 'succeeded', 'the clone then succeeds with the token');
    t.notOk(existsSync(includedFile!), 'the file is gone once the clone is done');
    t.match((await logLines(s, queued.id)).join('\n'), 'api key [redacted] and [redacted]', "the app's output is redacted");
  });

  await t.test('a second deployment', async (t) => {
    t.equal((await deploy(s, svc.id)).done.status, 'succeeded');
  });

  await t.test('no secret in any table, the server log or the API', async (t) => {
    const { rows: tables } = await s.app.db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1",
    );
    const names = tables.map((r) => r.table_name);
    t.ok(names.includes('es_events'), 'the event log is searched');
    const readModels = names.filter((n) => n.startsWith('rm_'));
    t.ok(readModels.length >= 7, `every read model is searched: ${readModels.join(', ')}`);
    for (const table of names) {
      const { rows } = await s.app.db.query<{ row: string }>(`select t::text as row from ${table} t`);
      const text = rows.map((r) => r.row).join('\n');
      for (const secret of secrets) for (const form of formsOf(secret)) t.notMatch(text, form, `${table}: no ${secret.slice(0, 6)}…`);
    }
    const { rows: sealed } = await s.app.db.query<{ n: number }>("select count(*)::int as n from es_events where data::text like '%enc:v1:%'");
    t.ok(sealed[0]!.n >= 5, 'the secrets are in the log, sealed');

    const logs = s.logs();
    t.match(logs, '"message":"slipway listening"', 'the server log was captured');
    for (const secret of secrets) for (const form of formsOf(secret)) t.notMatch(logs, form, `server log: no ${secret.slice(0, 6)}…`);

    const answers = JSON.stringify([
      (await s.call('GET', '/api/events?limit=1000')).body,
      (await s.call('GET', `/api/projects/${p.id}`)).body,
      (await s.call('GET', `/api/services/${svc.id}/deployments`)).body,
    ]);
    for (const secret of secrets) t.notMatch(answers, secret, `API: no ${secret.slice(0, 6)}…`);
  });

  await t.test('deleting the project shreds the data keys of its services', async (t) => {
    const serviceIds = [svc.id, db.id];
    const sealedValues = async () => {
      const { rows } = await s.app.db.query<{ data: string }>('select data::text as data from es_events');
      return rows.flatMap((r) => r.data.match(/enc:v1:[0-9a-f-]{36}:[^"]+/g) ?? []).filter((v) => serviceIds.some((id) => v.startsWith(`enc:v1:${id}:`)));
    };
    const before = await sealedValues();
    t.ok(before.some((v) => v.startsWith(`enc:v1:${svc.id}:`)) && before.some((v) => v.startsWith(`enc:v1:${db.id}:`)), 'both services have sealed values');
    const opened = await Promise.all(before.map((v) => s.app.keyring.decrypt(v)));
    t.ok(opened.includes(TOKEN) && opened.includes(API_KEY) && opened.includes(DB_PASSWORD), 'readable while the project lives');

    const deleted = await s.call('DELETE', `/api/projects/${p.id}`);
    t.equal(deleted.status, 200);
    const { rows: keys } = await s.app.db.query('select aggregate_id from sec_data_keys where aggregate_id = any($1)', [serviceIds]);
    t.same(keys, [], 'their data keys are gone');
    const after = await sealedValues();
    t.same(after, before, 'the history keeps every event');
    // A keyring opened afresh (no cache) from the database and the master key, as after a restart.
    const fresh = await createKeyring(s.app.db, loadMasterKey(s.dataDir, undefined).key);
    t.same(await Promise.all(after.map((v) => fresh.decrypt(v))), after.map(() => null), 'no old event can be decrypted any more');
    t.equal((await s.call('GET', `/api/services/${svc.id}/overview`)).status, 404);
  });
});
