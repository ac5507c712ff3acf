import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createKey, createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { waitFor } from '../helpers/net.js';
import { destinationOf } from '../helpers/outbound.js';
import { startS3Server } from '../helpers/s3-server.js';
import { finishedBackup } from '../helpers/backup-wait.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// s3rver checks the access key id only: any secret works, and this one must never be shown.
const SECRET = 'never-shown-Secret-4481';
const database = (name: string, engine: string) => ({ name, repoFullName: `database:${engine}`, repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] });

async function backUp(s: TestServer, serviceId: string, storage: string) {
  const r = await s.call('POST', `/api/services/${serviceId}/database/backups`, { body: { storage } });
  if (r.status !== 200) throw new Error(`backup: ${r.status} ${JSON.stringify(r.body)}`);
  return { answer: r.body.backup as Record<string, any>, done: await finishedBackup(s, serviceId, r.body.backup.id) };
}

async function download(s: TestServer, serviceId: string, backupId: string, key = s.key) {
  const r = await fetch(`${s.url}/api/services/${serviceId}/database/backups/${backupId}/download`, { headers: { authorization: `Bearer ${key}` } });
  const bytes = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, bytes, checksum: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
}

const sql = async (s: TestServer, serviceId: string, text: string) => {
  const r = await s.call('POST', `/api/services/${serviceId}/database/query`, { body: { sql: text } });
  if (r.status !== 200) throw new Error(`${text}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.rows as Record<string, unknown>[];
};

t.test('backups: disk, remote and both; download, restore, delete, corruption, access', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const s3 = await startS3Server();
  t.teardown(() => s3.stop());
  // s3rver runs on loopback: allowed, exactly it.
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_DEPLOY_CONCURRENCY: '4', SLIPWAY_RECONCILE_INTERVAL: '1', SLIPWAY_ALLOW_DESTINATIONS: destinationOf(s3.endpoint) });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Backups');
  t.teardown(() => removeProjectLeftovers(project.id));
  const pg = await createService(s, project.id, database('main-db', 'postgres'));
  const my = await createService(s, project.id, database('shop', 'mysql'));
  const cache = await createService(s, project.id, database('cache', 'redis'));
  const olap = await createService(s, project.id, database('olap', 'columnar'));
  const runs = await Promise.all([pg, my, cache, olap].map((svc) => deploy(s, svc.id)));
  for (const r of runs) t.equal(outcome(r.done), 'succeeded');

  t.test('bad input and remote storage that is not connected', async (t) => {
    const bad = await s.call('POST', `/api/services/${pg.id}/database/backups`, { body: { storage: 'tape' } });
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'validation_failed');
    const listed = await s.call('GET', `/api/services/${pg.id}/database/backups`);
    t.same(listed.body.remote, { connected: false });
    t.match(listed.body.settings, { serviceId: pg.id, storage: 'disk', automaticEnabled: false });
    const { answer, done } = await backUp(s, pg.id, 'remote');
    t.match(answer, { status: 'running', trigger: 'manual', storage: 'remote', finishedAt: null, format: 'custom' });
    t.equal(done.status, 'failed', 'never green without its storage');
    t.match(done.error, /remote storage is not connected/);
  });

  t.test('remote storage settings: probed before saving, secret never shown, all-project write keys only', async (t) => {
    const config = { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: SECRET, prefix: 'slipway-test', forcePathStyle: true };
    const wrongBucket = await s.call('PUT', '/api/settings/remote-storage', { body: { ...config, bucket: 'no-such-bucket' } });
    t.equal(wrongBucket.status, 400);
    t.equal(wrongBucket.body.error.code, 'remote_storage_failed');
    t.match(wrongBucket.body.error.message, /bucket/i, "the storage's own message");
    t.equal((await s.call('GET', '/api/settings')).body.settings.remoteStorage.connected, false, 'nothing saved');
    const reader = await createKey(s, 'read', null);
    const scoped = await createKey(s, 'write', [project.id]);
    t.equal((await s.call('PUT', '/api/settings/remote-storage', { body: config, key: reader.secret })).status, 403);
    t.equal((await s.call('PUT', '/api/settings/remote-storage', { body: config, key: scoped.secret })).status, 403);
    t.equal((await s.call('PUT', '/api/settings/remote-storage', { body: { ...config, bucket: 'Bad_Bucket' } })).status, 400);
    const saved = await s.call('PUT', '/api/settings/remote-storage', { body: config });
    t.equal(saved.status, 200, JSON.stringify(saved.body));
    const shown = await s.call('GET', '/api/settings');
    t.match(shown.body.settings.remoteStorage, { connected: true, bucket: s3.bucket, prefix: 'slipway-test', secretAccessKeySet: true });
    t.notOk(JSON.stringify(shown.body).includes(SECRET), 'the secret is never shown');
    const history = await s.call('GET', '/api/events?limit=1000&stream=settings-installation');
    t.match(JSON.stringify(history.body), /RemoteStorageConnected/);
    t.notOk(JSON.stringify(history.body).includes(SECRET), 'nor in the audit history');
  });

  const engines = [
    {
      name: 'postgres', svc: pg,
      seed: 'create table notes (id serial primary key, body text); insert into notes (body) select md5(g::text) from generate_series(1, 500) g',
      destroy: 'drop table notes', check: 'select count(*)::int as n, max(body) as top from notes',
    },
    {
      name: 'mysql', svc: my,
      seed: "create table notes (id int auto_increment primary key, body text); insert into notes (body) values ('a'), ('b'), ('c')",
      destroy: 'drop table notes', check: 'select count(*) as n, max(body) as top from notes',
    },
    { name: 'redis', svc: cache, seed: 'SET note:1 "first"', destroy: 'FLUSHALL', check: 'GET note:1' },
    {
      name: 'columnar', svc: olap,
      seed: "CREATE TABLE notes (id UInt32, body String) ENGINE = MergeTree ORDER BY id", destroy: 'DROP TABLE notes', check: 'SELECT count() AS n FROM notes',
    },
  ];

  for (const e of engines) {
    t.test(`${e.name}: disk+remote backup, download matches, data destroyed, restored`, async (t) => {
      await sql(s, e.svc.id, e.seed);
      if (e.name === 'columnar') await s.call('POST', `/api/services/${e.svc.id}/database/rows`, { body: { table: 'olap.notes', values: { id: 1, body: 'x' } } });
      const before = await sql(s, e.svc.id, e.check);
      const { done } = await backUp(s, e.svc.id, 'disk+remote');
      t.equal(done.status, 'succeeded', done.error ?? '');
      t.ok(done.sizeBytes > 0);
      t.match(done.checksum, /^sha256:[0-9a-f]{64}$/);
      t.ok(done.localPath && done.remoteKey, 'both copies');
      t.equal(done.localPath, `backups/${e.svc.id}/${done.id}.${done.localPath.split('.').at(-1)}`, 'the path is relative to the data directory, no host path');
      const modes = [join(s.dataDir, 'backups'), join(s.dataDir, 'backups', e.svc.id), join(s.dataDir, done.localPath)].map((path) => (statSync(path).mode & 0o777).toString(8));
      t.same(modes, ['700', '700', '600'], 'the file and its directories are Slipway\'s alone');
      const got = await download(s, e.svc.id, done.id);
      t.equal(got.status, 200);
      t.equal(got.bytes.length, done.sizeBytes, 'the size matches');
      t.equal(got.checksum, done.checksum, 'the checksum matches');
      t.equal(got.headers.get('content-type'), 'application/octet-stream');
      t.match(got.headers.get('content-disposition'), new RegExp(`^attachment; filename="${e.svc.slug}-\\d{8}T\\d{6}Z\\.\\w+"$`));
      await sql(s, e.svc.id, e.destroy);
      const restored = await s.call('POST', `/api/services/${e.svc.id}/database/backups/${done.id}/restore`);
      t.equal(restored.status, 200, JSON.stringify(restored.body));
      t.match(restored.body, { ok: true, backup: { id: done.id, status: 'succeeded' } });
      t.same(await sql(s, e.svc.id, e.check), before, 'the data is back');
    });
  }

  t.test('postgres: a remote-only backup downloads and restores from the storage', async (t) => {
    const { done } = await backUp(s, pg.id, 'remote');
    t.equal(done.status, 'succeeded', done.error ?? '');
    t.equal(done.localPath, undefined, 'no disk copy');
    t.equal((await download(s, pg.id, done.id)).checksum, done.checksum);
    await sql(s, pg.id, 'delete from notes');
    t.equal((await s.call('POST', `/api/services/${pg.id}/database/backups/${done.id}/restore`)).status, 200);
    t.same(await sql(s, pg.id, 'select count(*)::int as n from notes'), [{ n: 500 }]);
  });

  t.test('a corrupted file is refused at restore and changes nothing', async (t) => {
    const { done } = await backUp(s, pg.id, 'disk');
    const file = readFileSync(join(s.dataDir, done.localPath));
    const middle = Math.floor(file.length / 2);
    file[middle] = file[middle]! ^ 0xff;
    writeFileSync(join(s.dataDir, done.localPath), file);
    await sql(s, pg.id, 'delete from notes where id > 10');
    const refused = await s.call('POST', `/api/services/${pg.id}/database/backups/${done.id}/restore`);
    t.equal(refused.status, 409);
    t.match(refused.body.error.message, /checksum/);
    t.same(await sql(s, pg.id, 'select count(*)::int as n from notes'), [{ n: 10 }], 'nothing was restored');
  });

  t.test('a restore from another engine is refused; restores are on record', async (t) => {
    const { done } = await backUp(s, my.id, 'disk');
    t.equal((await s.call('POST', `/api/services/${pg.id}/database/backups/${done.id}/restore`)).status, 404, "another service's backup is not addressed here");
    const history = await s.call('GET', `/api/events?limit=1000&stream=backup-${done.id}`);
    t.same(history.body.events.map((e: { type: string }) => e.type), ['BackupRequested', 'BackupStarted', 'BackupSucceeded']);
    const restores = (await s.call('GET', `/api/projects/${project.id}/events?limit=1000`)).body.events.filter((e: { type: string }) => e.type === 'BackupRestored');
    t.ok(restores.length >= 5, 'each restore is an event');
    t.match(restores[0].actor, /^key:/);
  });

  t.test('access levels and scopes', async (t) => {
    const { done } = await backUp(s, cache.id, 'disk');
    const reader = await createKey(s, 'read', [project.id]);
    const other = await createProject(s, 'Elsewhere');
    t.teardown(() => removeProjectLeftovers(other.id));
    const stranger = await createKey(s, 'write', [other.id]);
    t.equal((await s.call('GET', `/api/services/${cache.id}/database/backups`, { key: reader.secret })).status, 200);
    t.equal((await download(s, cache.id, done.id, reader.secret)).status, 200, 'read keys download');
    t.equal((await s.call('POST', `/api/services/${cache.id}/database/backups`, { body: { storage: 'disk' }, key: reader.secret })).status, 403);
    t.equal((await s.call('POST', `/api/services/${cache.id}/database/backups/${done.id}/restore`, { key: reader.secret })).status, 403);
    t.equal((await s.call('DELETE', `/api/services/${cache.id}/database/backups/${done.id}`, { key: reader.secret })).status, 403);
    t.equal((await s.call('GET', `/api/services/${cache.id}/database/backups`, { key: stranger.secret })).status, 404, 'an invisible project');
    const settings = await s.call('GET', '/api/settings', { key: reader.secret });
    t.equal(settings.status, 200, 'any key reads the settings (they hold no secret)');
    t.same(settings.body.settings.remoteStorage, { connected: true }, 'a project-scoped key learns only that a storage is connected');
    t.equal((await s.call('PUT', '/api/settings/remote-storage', { body: {}, key: stranger.secret })).status, 403, 'a project-scoped write key changes none');
  });

  t.test('delete removes the file and the object; a second delete is a 404', async (t) => {
    const { done } = await backUp(s, pg.id, 'disk+remote');
    t.equal((await s.call('DELETE', `/api/services/${pg.id}/database/backups/${done.id}`)).status, 200);
    t.throws(() => readFileSync(join(s.dataDir, done.localPath)), 'the file is gone');
    t.equal((await s.call('DELETE', `/api/services/${pg.id}/database/backups/${done.id}`)).status, 404);
    t.equal((await download(s, pg.id, done.id)).status, 404);
  });

  t.test('backup settings', async (t) => {
    const put = await s.call('PUT', `/api/services/${pg.id}/database/backups/settings`, { body: { automaticEnabled: true, storage: 'disk+remote', weeklyEnabled: false } });
    t.equal(put.status, 200);
    t.match(put.body.settings, { serviceId: pg.id, storage: 'disk+remote', automaticEnabled: true, dailyEnabled: true, weeklyEnabled: false, monthlyEnabled: true });
    t.equal((await s.call('PUT', `/api/services/${pg.id}/database/backups/settings`, { body: { storage: 'tape' } })).status, 400);
    t.equal((await s.call('PUT', `/api/services/${pg.id}/database/backups/settings`, { body: {} })).status, 400);
    t.equal((await s.call('PUT', `/api/services/${pg.id}/database/backups/settings`, { body: { hourly: true } })).status, 400);
    t.match((await s.call('GET', `/api/services/${pg.id}/database/backups`)).body.settings, { automaticEnabled: true, weeklyEnabled: false });
    // The scheduler requests the day's backup (the hour has come, or yesterday's is due) exactly once.
    const scheduled = async () => ((await s.call('GET', `/api/services/${pg.id}/database/backups`)).body.backups as Record<string, any>[]).filter((b) => b.trigger === 'scheduled');
    const ran = await waitFor('the scheduled backup', scheduled, (list) => list.length > 0 && list.every((b) => b.status !== 'running'), 60_000);
    t.match(ran, [{ trigger: 'scheduled', status: 'succeeded', storage: 'disk+remote' }]);
    await new Promise((r) => setTimeout(r, 2_500));
    t.equal((await scheduled()).length, 1, 'and not again on the next passes');
    t.equal((await s.call('PUT', `/api/services/${pg.id}/database/backups/settings`, { body: { automaticEnabled: false } })).status, 200);
  });
});
