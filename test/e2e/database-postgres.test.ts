import { Client } from 'pg';
import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { startGitServer } from '../helpers/git-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PASSWORD = 'pw-of-the-db-4411';

/** Reads a table through the API, as a client would. */
async function rowsOf(s: TestServer, serviceId: string, table: string) {
  const r = await s.call('GET', `/api/services/${serviceId}/database/rows?table=${encodeURIComponent(table)}&limit=50`);
  if (r.status !== 200) throw new Error(`rows: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { columns: { name: string; type: string; primary: boolean }[]; rows: Record<string, unknown>[]; total: number };
}

const sql = (s: TestServer, serviceId: string, text: string, key?: string) =>
  s.call('POST', `/api/services/${serviceId}/database/query`, { body: { sql: text }, ...(key ? { key } : {}) });

t.test('a postgres service deploys, is browsed and edited, speaks verified TLS, keeps its data', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const git = await startGitServer();
  t.teardown(() => git.close());
  const { env } = await deployEnv({ SLIPWAY_GIT_BASE_URL: git.baseUrl, ...DB_IMAGE_ENV });
  let s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Data');
  t.teardown(async () => {
    await removeProjectLeftovers(project.id);
    for (const v of (await docker.listVolumes({ filters: { label: [`${LABEL.project}=${project.id}`] } })).Volumes ?? []) {
      await docker.getVolume(v.Name).remove().catch(() => undefined);
    }
  });

  const db = await createService(s, project.id, {
    name: 'main-db',
    repoFullName: 'database:postgres',
    repoUrl: 'database',
    branch: 'main',
    internalPort: 5432,
    databasePublicEnabled: false,
    postgresLogicalReplicationEnabled: true,
    env: [{ key: 'POSTGRES_PASSWORD', value: PASSWORD }],
  });
  t.equal((await s.call('GET', `/api/services/${db.id}/database/tables`)).status, 409, 'not running before its first deployment');

  let sealedStatement = '';
  const first = await deploy(s, db.id);
  t.equal(outcome(first.done), 'succeeded', 'the first deployment succeeds');

  t.test('tables, SQL, rows', async (t) => {
    const created = await sql(s, db.id, "create schema shop; create table shop.items (id serial primary key, name text not null, price numeric(8,2)); insert into shop.items (name, price) values ('kettle', 19.90), ('mug', 4.50); create table public.notes (body text)");
    t.equal(created.status, 200, JSON.stringify(created.body));
    const tables = await s.call('GET', `/api/services/${db.id}/database/tables`);
    t.equal(tables.body.engine, 'postgres');
    t.same(
      tables.body.tables.map((x: Record<string, unknown>) => [x.id, x.rowCount]),
      [
        ['public.notes', 0],
        ['shop.items', 2],
      ],
      'every user table with its exact row count',
    );

    const page = await rowsOf(s, db.id, 'shop.items');
    t.same(page.columns.map((c) => [c.name, c.primary]), [['id', true], ['name', false], ['price', false]]);
    t.equal(page.columns[0]!.type, 'integer');
    t.equal(page.total, 2);
    t.same(page.rows.map((r) => r.name), ['kettle', 'mug']);

    const inserted = await s.call('POST', `/api/services/${db.id}/database/rows`, { body: { table: 'shop.items', values: { name: "o'clock'); drop table shop.items; --", price: '1.00' } } });
    t.equal(inserted.status, 200, JSON.stringify(inserted.body));
    t.equal(inserted.body.id, 3, 'the insert answers the serial id');
    t.equal((await s.call('PATCH', `/api/services/${db.id}/database/rows`, { body: { table: 'shop.items', primaryKey: { id: 1 }, values: { price: '17.50' } } })).status, 200);
    t.equal((await s.call('DELETE', `/api/services/${db.id}/database/rows`, { body: { table: 'shop.items', primaryKey: { id: 2 } } })).status, 200);
    const after = await rowsOf(s, db.id, 'shop.items');
    t.same(after.rows.map((r) => [r.id, r.name, r.price]), [[1, 'kettle', '17.50'], [3, "o'clock'); drop table shop.items; --", '1.00']], 'hostile values are stored as data');

    const selected = await sql(s, db.id, 'select id, name from shop.items order by id');
    t.same(selected.body.columns.map((c: { name: string; type: string }) => [c.name, c.type]), [['id', 'int4'], ['name', 'text']], 'columns with the engine\'s type names');
    t.equal(selected.body.rowCount, 2);
    t.equal((await sql(s, db.id, 'show wal_level')).body.rows[0].wal_level, 'logical', 'logical replication sets wal_level');

    // Errors a client causes are 4xx with the engine's words.
    const bad = await sql(s, db.id, 'select * from nowhere');
    t.equal(bad.status, 422);
    t.match(bad.body.error.message, /nowhere/);
    t.equal((await s.call('GET', `/api/services/${db.id}/database/rows?table=shop.missing`)).status, 404);
    t.equal((await s.call('GET', `/api/services/${db.id}/database/rows?table=shop.items&limit=5000`)).status, 400);
    t.equal((await s.call('POST', `/api/services/${db.id}/database/rows`, { body: { table: 'shop.items', values: { 'name"; drop table x; --': 'a' } } })).status, 400, 'an unknown column is refused');
  });

  t.test('read keys browse; writing needs write; scope applies', async (t) => {
    const reader = await createKey(s, 'read', [project.id]);
    const elsewhere = await createProject(s, 'Elsewhere');
    const stranger = await createKey(s, 'write', [elsewhere.id]);
    t.equal((await s.call('GET', `/api/services/${db.id}/database/tables`, { key: reader.secret })).status, 200);
    t.equal((await s.call('GET', `/api/services/${db.id}/database/tls`, { key: reader.secret })).status, 200);
    t.equal((await sql(s, db.id, 'select 1', reader.secret)).status, 403);
    t.equal((await s.call('POST', `/api/services/${db.id}/database/rows`, { key: reader.secret, body: { table: 'shop.items', values: {} } })).status, 403);
    t.equal((await s.call('GET', `/api/services/${db.id}/database/tables`, { key: stranger.secret })).status, 404);
  });

  t.test('TLS: verified with the installation CA', async (t) => {
    const info = await s.call('GET', `/api/services/${db.id}/database/tls`);
    t.same(info.body.tls, { active: true, caCertAvailable: true, publicHostname: 'localhost', publicPort: db.hostPort }, 'bound to loopback: no public name advertised');
    const ca = await s.call('GET', `/api/services/${db.id}/database/tls/ca`);
    t.match(ca.body, /^-----BEGIN CERTIFICATE-----/);
    const client = new Client({ host: '127.0.0.1', port: db.hostPort, user: 'postgres', password: PASSWORD, database: 'main_db', ssl: { ca: ca.body, servername: 'localhost', rejectUnauthorized: true } });
    await client.connect();
    const { rows } = await client.query('select ssl from pg_stat_ssl where pid = pg_backend_pid()');
    await client.end();
    t.equal(rows[0].ssl, true, 'a client that trusts the CA connects with verification');
    const wrongName = new Client({ host: '127.0.0.1', port: db.hostPort, user: 'postgres', password: PASSWORD, database: 'main_db', ssl: { ca: ca.body, servername: 'not-this-db.example', rejectUnauthorized: true } });
    await t.rejects(wrongName.connect(), /altnames|Hostname/i, 'a name outside the certificate fails verify-full');
    await wrongName.end().catch(() => undefined);
  });

  t.test('a password variable of an initialised database changes only once the engine has it', async (t) => {
    const refused = await s.call('POST', `/api/services/${db.id}/env`, { body: { key: 'POSTGRES_PASSWORD', value: 'a-new-password-1' } });
    t.equal(refused.status, 409);
    t.match(refused.body.error.message, /ALTER USER/);
    t.equal((await sql(s, db.id, "alter user postgres password 'a-new-password-1'")).status, 200);
    t.equal((await s.call('POST', `/api/services/${db.id}/env`, { body: { key: 'POSTGRES_PASSWORD', value: 'a-new-password-1' } })).status, 200, 'accepted once the engine has it');
    t.equal((await s.call('GET', `/api/services/${db.id}/database/tables`)).status, 200, 'Slipway connects with the new password');
  });

  t.test('a password set through the console is sealed in the history and masked for auditors', async (t) => {
    t.equal((await sql(s, db.id, "select U&'a-hidden-value-2' /* a-hidden-value-2 */ as x, 42 as n")).status, 200);
    const reader = await createKey(s, 'read', [project.id]);
    const history = await s.call('GET', `/api/projects/${project.id}/events?limit=1000`, { key: reader.secret });
    const runs = history.body.events.filter((e: { type: string }) => e.type === 'DatabaseQueryRun');
    const statements = runs.map((e: { data: { statement: string } }) => e.data.statement);
    t.ok(statements.includes("alter user postgres password '…'"), 'the auditor reads the statement, its password masked');
    t.ok(statements.includes("select '…' /* … */ as x, ? as n"), 'every literal, comment and number masked');
    t.notOk(JSON.stringify(history.body).includes('a-new-password-1'), 'the project\'s history shows the password nowhere');
    t.notOk(JSON.stringify(history.body).includes('a-hidden-value-2'), 'nor any literal');
    const raw = JSON.stringify(await s.app.store.readAll({ after: null, maxCount: 100_000 }));
    t.notOk(raw.includes('a-new-password-1'), 'the log itself holds it in no event');
    const recorded = (await s.app.store.readStream(`database-${db.id}`)).find((e) => String(e.data.statement).startsWith('alter user'));
    t.equal(await s.app.keyring.decrypt(recorded!.data.sealedStatement as string), "alter user postgres password 'a-new-password-1'", 'sealed under the service\'s data key');
    sealedStatement = recorded!.data.sealedStatement as string;
  });

  t.test('an app reaches the database through its reference', async (t) => {
    git.push('acme/writer', {
      Dockerfile: [
        'FROM slipway/db-postgres:bookworm',
        'ENTRYPOINT []',
        `CMD ["sh", "-c", "psql \\"$DATABASE_URL\\" -v ON_ERROR_STOP=1 -c \\"insert into public.notes values ('hello from the app')\\" && sleep infinity"]`,
      ].join('\n'),
    });
    const app = await createService(s, project.id, {
      name: 'writer',
      repoFullName: 'acme/writer',
      branch: 'main',
      runtimeMode: 'worker',
      internalPort: 8080,
      env: [{ key: 'DATABASE_URL', value: '${main-db.DATABASE_URL}' }],
    });
    const ran = await deploy(s, app.id);
    t.equal(outcome(ran.done), 'succeeded');
    t.same((await rowsOf(s, db.id, 'public.notes')).rows, [{ body: 'hello from the app' }]);
  });

  t.test('data survives a redeploy and a restart of Slipway', async (t) => {
    const again = await deploy(s, db.id);
    t.equal(outcome(again.done), 'succeeded');
    t.equal((await rowsOf(s, db.id, 'shop.items')).total, 2, 'after a redeploy');
    const containers = await docker.listContainers({ all: true, filters: { label: [`${LABEL.service}=${db.id}`] } });
    t.equal(containers.length, 1, 'the previous container is gone');
    await s.stopKeepingData();
    s = await startTestServer(env, s.dataDir);
    t.equal((await rowsOf(s, db.id, 'shop.items')).total, 2, 'after a restart');
    const info = await docker.getContainer(containers[0]!.Id).inspect();
    t.same(info.HostConfig.PortBindings?.['5432/tcp']?.[0]?.HostIp, '127.0.0.1', 'not public: bound to loopback only');
  });

  t.test('deleting the service removes its container and its volume', async (t) => {
    t.equal((await s.call('DELETE', `/api/services/${db.id}`)).status, 200);
    const gone = async () =>
      (await docker.listContainers({ all: true, filters: { label: [`${LABEL.service}=${db.id}`] } })).length === 0 &&
      ((await docker.listVolumes({ filters: { label: [`${LABEL.service}=${db.id}`] } })).Volumes ?? []).length === 0;
    const end = Date.now() + 30_000;
    while (!(await gone()) && Date.now() < end) await new Promise((r) => setTimeout(r, 250));
    t.ok(await gone(), 'container and volume removed');
    const shredded = Date.now() + 30_000;
    while ((await s.app.keyring.decrypt(sealedStatement)) !== null && Date.now() < shredded) await new Promise((r) => setTimeout(r, 250));
    t.equal(await s.app.keyring.decrypt(sealedStatement), null, 'the statements run on it can no longer be read: its data key is shredded');
  });
});
