import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const database = (name: string) => ({ name, repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] });
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function backUp(s: TestServer, serviceId: string): Promise<string> {
  const r = await s.call('POST', `/api/services/${serviceId}/database/backups`, { body: { storage: 'disk' } });
  if (r.status !== 200) throw new Error(`backup: ${r.status} ${JSON.stringify(r.body)}`);
  for (let i = 0; i < 600; i++) {
    const found = ((await s.call('GET', `/api/services/${serviceId}/database/backups`)).body.backups as { id: string; status: string }[]).find((b) => b.id === r.body.backup.id);
    if (found?.status === 'succeeded') return found.id;
    if (found && found.status !== 'running') throw new Error(`backup ${found.id} ${found.status}`);
    await sleep(200);
  }
  throw new Error('the backup did not end');
}

/** Resolves once the log holds `type` on `streamId`. */
async function logged(s: TestServer, streamId: string, type: string) {
  for (let i = 0; i < 1000; i++) {
    const { rows } = await s.app.db.query('select 1 from es_events where stream_id = $1 and type = $2', [streamId, type]);
    if (rows.length > 0) return;
    await sleep(10);
  }
  throw new Error(`no ${type} on ${streamId}`);
}

t.test('one restore per service at a time, each on record from start to outcome', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_RECONCILE_INTERVAL: '1' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Restores');
  t.teardown(() => removeProjectLeftovers(project.id));
  const pg = await createService(s, project.id, database('main-db'));
  t.equal(outcome((await deploy(s, pg.id)).done), 'succeeded');
  // Enough rows that a restore takes a while.
  const seeded = await s.call('POST', `/api/services/${pg.id}/database/query`, {
    body: { sql: 'create table notes as select g as id, md5(g::text) || md5((g + 1)::text) as body from generate_series(1, 300000) g' },
  });
  t.equal(seeded.status, 200, JSON.stringify(seeded.body));
  const first = await backUp(s, pg.id);
  const second = await backUp(s, pg.id);
  const restorePath = (backupId: string) => `/api/services/${pg.id}/database/backups/${backupId}/restore`;

  const running = s.call('POST', restorePath(first), { headers: { 'idempotency-key': 'restore-first', 'x-request-id': 'restore-first-request' } });
  await logged(s, `backup-${first}`, 'BackupRestoreStarted');
  const other = await s.call('POST', restorePath(second));
  t.equal(other.status, 409, 'another backup into the same service while one restores: 409');
  t.equal(other.body.error.code, 'conflict');
  t.match(other.body.error.message, new RegExp(`restore of backup ${first} into this service is running`));
  const again = await s.call('POST', restorePath(first), { headers: { 'idempotency-key': 'restore-first-again' } });
  t.equal(again.status, 409, 'the same backup again, under another key: 409');
  t.match(again.body.error.message, /already running/);
  const load = await s.call('POST', `/api/services/${pg.id}/database/import/postgres-url`, { body: { sourceUrl: 'postgres://someone:secret@db.example.com:5432/app' } });
  t.equal(load.status, 409, 'an import into the service while it restores: 409');
  t.match(load.body.error.message, new RegExp(`restore of backup ${first} into this service is running`));
  const removal = await s.call('DELETE', `/api/services/${pg.id}/database/backups/${first}`);
  t.equal(removal.status, 409, 'the backup being restored cannot be deleted meanwhile');
  const done = await running;
  t.equal(done.status, 200, JSON.stringify(done.body));
  t.match(done.body, { ok: true, backup: { id: first } });

  const { body: history } = await s.call('GET', `/api/events?stream=backup-${first}&limit=100`);
  const restoreEvents = (history.events as { type: string; actor: string; correlationId: string; data: Record<string, unknown> }[]).filter((e) =>
    e.type.startsWith('BackupRestore'),
  );
  t.same(
    restoreEvents.map((e) => e.type),
    ['BackupRestoreStarted', 'BackupRestored'],
    'the restore started and ended, on the backup',
  );
  for (const e of restoreEvents) {
    t.match(e.actor, /^key:/, `${e.type}: who`);
    t.equal(e.correlationId, 'restore-first-request', `${e.type}: which request`);
    t.match(e.data, { serviceId: pg.id, projectId: project.id }, `${e.type}: into which service`);
  }
  const { rows: refused } = await s.app.db.query("select 1 from es_events where stream_id = $1 and type like 'BackupRestore%'", [`backup-${second}`]);
  t.equal(refused.length, 0, 'a refused restore records nothing');

  const afterwards = await s.call('POST', restorePath(second));
  t.equal(afterwards.status, 200, 'once the first ended, the service takes the next restore');
  const replay = await s.call('POST', restorePath(first), { headers: { 'idempotency-key': 'restore-first' } });
  t.equal(replay.headers.get('idempotent-replayed'), 'true', 'the first restore, retried, is its answer again and restores nothing');
  const rows = await s.call('POST', `/api/services/${pg.id}/database/query`, { body: { sql: 'select count(*)::int as n from notes' } });
  t.same(rows.body.rows, [{ n: 300000 }]);
});
