import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { requireCaddy } from '../helpers/caddy.js';
import { deployEnv, outcome, queueDeployment, waitForDeployment } from '../helpers/deploy.js';
import { requireDocker } from '../helpers/docker.js';
import { DB_IMAGE_ENV, requireDbImages } from '../helpers/engine-containers.js';
import { createService } from '../helpers/http-resources.js';
import { waitFor } from '../helpers/net.js';
import { installation } from '../helpers/slipway-process.js';

const files = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }) : []);

t.test('SIGKILL during a backup: after the restart it is failed with a reason, and nothing partial is left', { skip: (await requireDocker()) || (await requireDbImages()) || requireCaddy() }, async (t) => {
  const { env } = await deployEnv({ ...DB_IMAGE_ENV, SLIPWAY_DB_QUERY_TIMEOUT: '120' });
  const slipway = installation(t, env);
  let s = await slipway.start();
  const projectId = await slipway.createProject('Backup crash');
  const db = await createService(s, projectId, { name: 'pg', repoFullName: 'database:postgres', repoUrl: 'database', branch: 'main', internalPort: 1, databasePublicEnabled: false, env: [] });
  t.equal(outcome(await waitForDeployment(s, db.id, (await queueDeployment(s, db.id)).id)), 'succeeded');
  t.equal((await s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: 'create table held (id int)' } })).status, 200);

  // A console statement holds the table exclusively: pg_dump waits for it, so the backup is surely mid-run.
  void s.call('POST', `/api/services/${db.id}/database/query`, { body: { sql: 'begin; lock table held in access exclusive mode; select pg_sleep(15)' } }).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 1000));
  const requested = await s.call('POST', `/api/services/${db.id}/database/backups`, { body: { storage: 'disk' } });
  t.equal(requested.status, 200);
  const id = requested.body.backup.id as string;
  const backups = join(slipway.dataDir, 'backups', db.id);
  await waitFor('the partial file', async () => files(backups), (names) => names.some((n) => n.endsWith('.partial')), 30_000);
  await slipway.crash();

  s = await slipway.start();
  const after = await waitFor(
    'the interrupted backup to be failed',
    async () => ((await s.call('GET', `/api/services/${db.id}/database/backups`)).body.backups as Record<string, any>[]).find((b) => b.id === id),
    (b) => b?.status === 'failed',
    30_000,
  );
  t.match(after, { status: 'failed', error: /Slipway stopped while the backup ran/ });
  t.ok(after?.finishedAt, 'it has ended');
  t.same(files(backups).filter((n) => n.includes(id)), [], 'no partial file is left');
  const events = (await s.call('GET', `/api/events?limit=100&stream=backup-${id}`)).body.events.map((e: { type: string }) => e.type);
  t.same(events, ['BackupRequested', 'BackupStarted', 'BackupFailed']);

  const again = await s.call('POST', `/api/services/${db.id}/database/backups`, { body: { storage: 'disk' } });
  const next = await waitFor(
    'a new backup after the restart',
    async () => ((await s.call('GET', `/api/services/${db.id}/database/backups`)).body.backups as Record<string, any>[]).find((b) => b.id === again.body.backup.id),
    (b) => b?.status !== 'running',
    60_000,
  );
  t.equal(next?.status, 'succeeded', 'backups work again');
});
