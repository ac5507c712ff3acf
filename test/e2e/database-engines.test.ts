import t from 'tap';
import { LABEL } from '../../src/runtime/container-runtime.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { databaseService } from '../helpers/http-resources.js';
import { deploy, deployEnv, logLines, outcome, queueDeployment, waitForDeployment } from '../helpers/deploy.js';
import { docker, removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('mysql, redis, columnar and timeseries services deploy and are browsed through the API', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_DEPLOY_CONCURRENCY: '4', SLIPWAY_DB_IMAGE_MONGODB: 'slipway/no-such-mongo:7' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Engines');
  t.teardown(async () => {
    await removeProjectLeftovers(project.id);
    for (const v of (await docker.listVolumes({ filters: { label: [`${LABEL.project}=${project.id}`] } })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => undefined);
  });
  const my = await createService(s, project.id, databaseService('shop-db', 'mysql', { databasePublicEnabled: true }));
  const cache = await createService(s, project.id, databaseService('cache', 'redis'));
  const olap = await createService(s, project.id, databaseService('olap', 'columnar'));
  const ts = await createService(s, project.id, databaseService('metrics', 'timeseries'));
  const mongo = await createService(s, project.id, databaseService('docs', 'mongodb'));
  const runs = await Promise.all([my, cache, olap, ts, mongo].map((svc) => deploy(s, svc.id)));
  for (const [i, r] of runs.slice(0, 4).entries()) t.equal(outcome(r.done), 'succeeded', `${['mysql', 'redis', 'columnar', 'timeseries'][i]} deploys`);

  t.test('an image that cannot be had fails the deployment at once, naming it', async (t) => {
    const failed = runs[4]!.done;
    t.equal(failed.status, 'failed');
    t.match(failed.reason, /slipway\/no-such-mongo:7/);
    t.ok(Date.parse(failed.finishedAt) - Date.parse(failed.startedAt) < 10_000, 'within seconds');
  });

  t.test('mysql: public on all interfaces, SQL, rows, audit without values', async (t) => {
    const [container] = await docker.listContainers({ filters: { label: [`${LABEL.service}=${my.id}`] } });
    const bound = (await docker.getContainer(container!.Id).inspect()).HostConfig.PortBindings?.['3306/tcp']?.[0];
    t.same(bound, { HostIp: '0.0.0.0', HostPort: String(my.hostPort) }, 'databasePublicEnabled publishes hostPort on all interfaces');
    const q = await s.call('POST', `/api/services/${my.id}/database/query`, { body: { sql: 'create table orders (id int auto_increment primary key, customer varchar(100) not null)' } });
    t.equal(q.status, 200, JSON.stringify(q.body));
    const inserted = await s.call('POST', `/api/services/${my.id}/database/rows`, { body: { table: 'shop_db.orders', values: { customer: 'Ada Lovelace' } } });
    t.same(inserted.body, { ok: true, table: 'shop_db.orders', id: 1 });
    const tables = await s.call('GET', `/api/services/${my.id}/database/tables`);
    t.same(tables.body, { engine: 'mysql', tables: [{ id: 'shop_db.orders', name: 'orders', schema: 'shop_db', rowCount: 1 }] });
    const history = await s.call('GET', `/api/projects/${project.id}/events?limit=1000`);
    const ops = (history.body.events as { type: string; data: Record<string, unknown>; actor: string }[]).filter((e) => e.type.startsWith('Database'));
    t.same(
      ops.map((e) => [e.type, e.data.table ?? e.data.statement]),
      [
        ['DatabaseQueryRun', 'create table orders (id int auto_increment primary key, customer varchar(?) not null)'],
        ['DatabaseRowInserted', 'shop_db.orders'],
      ],
    );
    t.notMatch(JSON.stringify(ops), /Ada Lovelace/, 'row values are never recorded');
    t.match(ops[0]!.actor, /^key:/);
  });

  t.test('redis: logical databases, a command line, key rows', async (t) => {
    t.equal((await s.call('POST', `/api/services/${cache.id}/database/query`, { body: { sql: 'SET "user:1" "Grace Hopper"' } })).status, 200);
    const tables = await s.call('GET', `/api/services/${cache.id}/database/tables?database=0`);
    t.same(tables.body.tables, [{ id: 'db0.user', name: 'user', schema: 'db0', rowCount: 1 }]);
    t.equal((await s.call('GET', `/api/services/${cache.id}/database/tables?database=16`)).status, 400, 'database 16 does not exist');
    const rows = await s.call('GET', `/api/services/${cache.id}/database/rows?table=db0.user`);
    t.same(rows.body.rows, [{ key: 'user:1', type: 'string', ttl: -1, value: 'Grace Hopper' }]);
    const history = await s.call('GET', `/api/projects/${project.id}/events?limit=1000`);
    const runs = (history.body.events as { type: string; data: Record<string, unknown> }[]).filter((e) => e.type === 'DatabaseQueryRun' && e.data.serviceId === cache.id);
    t.same(runs.map((e) => e.data.statement), ['SET user:1 ?'], 'auditors read the command and its key, not the value');
    t.equal((await s.call('GET', `/api/services/${cache.id}/database/tls`)).status, 400, 'TLS is a Postgres matter');
  });

  t.test('columnar: SQL and rows on ClickHouse', async (t) => {
    const created = await s.call('POST', `/api/services/${olap.id}/database/query`, { body: { sql: 'CREATE TABLE hits (id UInt64, url String) ENGINE = MergeTree ORDER BY id' } });
    t.equal(created.status, 200, JSON.stringify(created.body));
    t.equal((await s.call('POST', `/api/services/${olap.id}/database/rows`, { body: { table: 'olap.hits', values: { id: 7, url: "https://x.test/?q=' OR 1=1 --" } } })).status, 200);
    const rows = await s.call('GET', `/api/services/${olap.id}/database/rows?table=olap.hits`);
    t.same(rows.body.rows, [{ id: '7', url: "https://x.test/?q=' OR 1=1 --" }]);
    t.same(rows.body.columns.map((c: { name: string; primary: boolean }) => [c.name, c.primary]), [['id', true], ['url', false]]);
  });

  t.test('timeseries: a Postgres-compatible engine with TLS', async (t) => {
    const q = await s.call('POST', `/api/services/${ts.id}/database/query`, { body: { sql: 'select ssl from pg_stat_ssl where pid = pg_backend_pid()' } });
    t.same(q.body.rows, [{ ssl: true }], 'Slipway itself connects over verified TLS');
    t.equal((await s.call('GET', `/api/services/${ts.id}/database/tls`)).body.tls.active, true);
    t.ok((await logLines(s, runs[3]!.queued.id)).some((l) => /TLS on/.test(l)));
  });

  t.test('a redeploy keeps the data of mysql, redis and columnar', async (t) => {
    const again = await Promise.all([my, cache, olap].map((svc) => deploy(s, svc.id)));
    for (const r of again) t.equal(outcome(r.done), 'succeeded');
    t.same((await s.call('GET', `/api/services/${my.id}/database/rows?table=shop_db.orders`)).body.rows, [{ id: 1, customer: 'Ada Lovelace' }]);
    t.same((await s.call('GET', `/api/services/${cache.id}/database/rows?table=db0.user`)).body.rows, [{ key: 'user:1', type: 'string', ttl: -1, value: 'Grace Hopper' }]);
    t.same((await s.call('GET', `/api/services/${olap.id}/database/rows?table=olap.hits`)).body.rows, [{ id: '7', url: "https://x.test/?q=' OR 1=1 --" }]);
  });

  t.test('an abort while the new container starts brings the previous one back on the same data', async (t) => {
    const [before] = await docker.listContainers({ filters: { label: [`${LABEL.service}=${my.id}`] } });
    const queued = await queueDeployment(s, my.id);
    // Abort once the previous container is being stopped: MariaDB takes seconds to stop and start again.
    for (let i = 0; !(await logLines(s, queued.id)).some((l) => /^Stopping /.test(l)); i++) {
      if (i > 600) throw new Error('the deployment never began stopping the previous container');
      await new Promise((r) => setTimeout(r, 50));
    }
    t.equal((await s.call('POST', `/api/deployments/${queued.id}/abort`)).status, 200);
    const done = await waitForDeployment(s, my.id, queued.id);
    t.equal(done.status, 'aborted');
    const running = await docker.listContainers({ filters: { label: [`${LABEL.service}=${my.id}`] } });
    t.same(running.map((c) => c.Id), [before!.Id], 'only the previous container runs, and it runs');
    t.ok((await logLines(s, queued.id)).some((l) => /again on the same data; it answers/.test(l)), 'the log says it was started again and answers');
    t.same((await s.call('GET', `/api/services/${my.id}/database/rows?table=shop_db.orders`)).body.rows, [{ id: 1, customer: 'Ada Lovelace' }], 'its data answers');
  });
});
