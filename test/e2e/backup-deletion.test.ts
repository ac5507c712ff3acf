import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { deleteBackup } from '../../commands/backup/handlers.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { eventually } from '../helpers/net.js';
import { destinationOf } from '../helpers/outbound.js';
import { startS3Server } from '../helpers/s3-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PREFIX = 'slipway-deletion';

async function succeededBackup(s: TestServer, serviceId: string) {
  const r = await s.call('POST', `/api/services/${serviceId}/database/backups`, { body: { storage: 'disk+remote' } });
  if (r.status !== 200) throw new Error(`backup: ${r.status} ${JSON.stringify(r.body)}`);
  const id = r.body.backup.id as string;
  const done = await eventually(
    async () => ((await s.call('GET', `/api/services/${serviceId}/database/backups`)).body.backups as Record<string, any>[]).find((b) => b.id === id),
    (b) => b !== undefined && b.status !== 'running',
    120_000,
  );
  if (done?.status !== 'succeeded') throw new Error(`backup ${id}: ${JSON.stringify(done)}`);
  return done as { id: string; localPath: string; remoteKey: string };
}

const eventTypes = async (s: TestServer, backupId: string) => (await s.app.store.readStream(`backup-${backupId}`)).map((e) => e.type);

t.test('a deleted backup’s file and object are removed even when the removal fails or Slipway stops before it', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const s3 = await startS3Server();
  t.teardown(() => s3.stop());
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_RECONCILE_INTERVAL: '1', SLIPWAY_ALLOW_DESTINATIONS: destinationOf(s3.endpoint) });
  let s = await startTestServer(env);
  const dataDir = s.dataDir;
  t.teardown(async () => {
    await s.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const project = await createProject(s, 'Deletions');
  t.teardown(() => removeProjectLeftovers(project.id));
  const pg = await createService(s, project.id, { name: 'db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] });
  t.equal(outcome((await deploy(s, pg.id)).done), 'succeeded');
  const storage = { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, prefix: PREFIX, forcePathStyle: true };
  t.equal((await s.call('PUT', '/api/settings/remote-storage', { body: storage })).status, 200);
  const objectOf = (b: { remoteKey: string }) => `${PREFIX}/${b.remoteKey}`;

  t.test('the storage is unreachable while the backup is deleted', async (t) => {
    const backup = await succeededBackup(s, pg.id);
    t.ok((await s3.objectKeys()).includes(objectOf(backup)), 'its object is stored');
    s3.setReachable(false);
    t.equal((await s.call('DELETE', `/api/services/${pg.id}/database/backups/${backup.id}`)).status, 200, 'the deletion is recorded');
    t.equal((await s.call('GET', `/api/services/${pg.id}/database/backups/${backup.id}/download`)).status, 404, 'and the backup is gone for its users: no download');
    t.notOk(((await s.call('GET', `/api/services/${pg.id}/database/backups`)).body.backups as { id: string }[]).some((b) => b.id === backup.id), 'not listed');
    t.notOk(existsSync(join(dataDir, backup.localPath)), 'its file went at once');
    t.notOk((await eventTypes(s, backup.id)).includes('BackupFilesRemoved'), 'its object could not be removed, and nothing says it was');

    s3.setReachable(true);
    const keys = await eventually(() => s3.objectKeys(), (list) => !list.includes(objectOf(backup)), 20_000);
    t.notOk(keys.includes(objectOf(backup)), 'the runner’s reconcile removed the object once the storage answered');
    const types = await eventually(() => eventTypes(s, backup.id), (list) => list.includes('BackupFilesRemoved'), 10_000);
    t.same(types.slice(-2), ['BackupDeleted', 'BackupFilesRemoved'], 'and recorded that its copies are gone');
  });

  t.test('Slipway stops between recording the deletion and removing the copies', async (t) => {
    const backup = await succeededBackup(s, pg.id);
    // The first half of a deletion, as the route records it, and then the process is gone.
    await deleteBackup(s.app.backups.cmd, backup.id);
    await s.stopKeepingData();
    t.ok(existsSync(join(dataDir, backup.localPath)), 'the file is still there');
    t.ok((await s3.objectKeys()).includes(objectOf(backup)), 'and so is the object');

    s = await startTestServer(env, dataDir);
    const keys = await eventually(() => s3.objectKeys(), (list) => !list.includes(objectOf(backup)), 20_000);
    t.notOk(keys.includes(objectOf(backup)), 'after the restart the object was removed');
    t.notOk(existsSync(join(dataDir, backup.localPath)), 'and the file');
    const types = await eventually(() => eventTypes(s, backup.id), (list) => list.includes('BackupFilesRemoved'), 10_000);
    t.equal(types.at(-1), 'BackupFilesRemoved', 'and that is on record');
    t.equal((await s.call('GET', `/api/services/${pg.id}/database/backups/${backup.id}/download`)).status, 404);
  });

  t.test('a deleted database service takes its backups’ files and objects with it', async (t) => {
    const doomed = await createService(s, project.id, { name: 'doomed', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] });
    t.equal(outcome((await deploy(s, doomed.id)).done), 'succeeded');
    const backup = await succeededBackup(s, doomed.id);
    t.equal((await s.call('DELETE', `/api/services/${doomed.id}`)).status, 200);
    const keys = await eventually(() => s3.objectKeys(), (list) => !list.includes(objectOf(backup)), 20_000);
    t.notOk(keys.includes(objectOf(backup)), 'its object was removed');
    t.notOk(existsSync(join(dataDir, backup.localPath)), 'and its file');
    const history = await eventually(
      async () => (await s.app.store.readStream(`backup-${backup.id}`)).map((e) => ({ type: e.type, data: e.data })),
      (list) => list.some((e) => e.type === 'BackupFilesRemoved'),
      10_000,
    );
    t.same(history.slice(-2), [{ type: 'BackupDeleted', data: { reason: 'service-deleted' } }, { type: 'BackupFilesRemoved', data: {} }], 'both on record');
  });
});
