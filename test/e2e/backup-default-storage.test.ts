import t from 'tap';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { finishedBackup } from '../helpers/backup-wait.js';
import { startTestServer } from '../helpers/test-server.js';

const database = { name: 'main-db', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] };

t.test('a backup asked for without storage goes where the service’s backup settings say', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_RECONCILE_INTERVAL: '1' });
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  const project = await createProject(s, 'Default storage');
  t.teardown(() => removeProjectLeftovers(project.id));
  const db = await createService(s, project.id, database);
  t.equal(outcome((await deploy(s, db.id)).done), 'succeeded');
  const backups = `/api/services/${db.id}/database/backups`;
  const sql = async (text: string) => (await s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: text } })).body;

  await sql('CREATE TABLE notes (body text); INSERT INTO notes VALUES (\'kept\')');
  const bare = await s.call('POST', backups);
  t.equal(bare.status, 200, 'no body at all: nothing saved, so the disk');
  t.match(bare.body.backup, { status: 'running', trigger: 'manual', storage: 'disk', remoteKey: null });
  const done = await finishedBackup(s, db.id, bare.body.backup.id);
  t.equal(done.status, 'succeeded', 'without any remote storage');
  t.type(done.localPath, 'string');

  await sql('DELETE FROM notes');
  const restored = await s.call('POST', `${backups}/${done.id}/restore`);
  t.equal(restored.status, 200, 'and it restores');
  t.match((await sql('SELECT body FROM notes')).rows, [{ body: 'kept' }]);

  t.equal((await s.call('PUT', `${backups}/settings`, { body: { storage: 'remote' } })).status, 200);
  const saved = await s.call('POST', backups, { body: {} });
  t.equal(saved.status, 200);
  t.match(saved.body.backup, { storage: 'remote', localPath: undefined }, 'an empty body takes the saved default');
  const remote = await finishedBackup(s, db.id, saved.body.backup.id);
  t.match(remote, { status: 'failed', error: /remote storage is not connected/ });

  const given = await s.call('POST', backups, { body: { storage: 'disk' } });
  t.equal(given.body.backup.storage, 'disk', 'a given storage wins over the saved one');
  t.equal((await finishedBackup(s, db.id, given.body.backup.id)).status, 'succeeded');

  const bad = await s.call('POST', backups, { body: { storage: null } });
  t.equal(bad.status, 400, 'null is not a storage');
  t.equal(bad.body.error.code, 'validation_failed');
});
