import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { restoreRunningInto } from '../../commands/backup/handlers.js';
import { reservationId } from '../../commands/reservation/aggregate.js';
import { streamOf } from '../../commands/shared/aggregate.js';
import type { NewEvent } from '../../src/eventstore/port.js';
import { startTestServer } from '../helpers/test-server.js';

const event = (type: string, data: Record<string, unknown>): NewEvent => ({
  id: randomUUID(),
  type,
  schemaVersion: 1,
  data,
  metadata: { actor: 'key:someone', correlationId: 'the-lost-restore', causationId: null },
});

t.test('a restore cut short by a stop ends failed when Slipway is back, and frees its service', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-restore-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const serviceId = randomUUID();
  const projectId = randomUUID();
  const backupId = randomUUID();
  const owner = `${serviceId}/backup-${backupId}`;

  // What a restore had recorded when the process stopped: its reservation and its start, no outcome.
  const before = await startTestServer({}, dir);
  try {
    const requested = {
      serviceId, projectId, serviceSlug: 'db', engine: 'postgres', format: 'custom', storage: 'disk', trigger: 'manual',
      scheduledFor: null, localPath: `backups/${serviceId}/${backupId}.dump`, remoteKey: null,
    };
    await before.app.store.append(streamOf('backup', backupId), [
      event('BackupRequested', requested),
      event('BackupStarted', {}),
      event('BackupSucceeded', { sizeBytes: 1, checksum: 'sha256:00' }),
      event('BackupRestoreStarted', { serviceId, projectId }),
    ], 'no_stream');
    const { position } = await before.app.store.append(
      streamOf('reservation', reservationId('database-restore', serviceId)),
      [event('Reserved', { kind: 'database-restore', value: serviceId, owner })],
      'no_stream',
    );
    await before.app.settle(position);
  } finally {
    await before.stopKeepingData();
  }

  const s = await startTestServer({ SLIPWAY_RECONCILE_INTERVAL: '0.2' }, dir);
  t.teardown(() => s.close());
  let types: string[] = [];
  for (let i = 0; i < 100 && !types.includes('BackupRestoreFailed'); i++) {
    await new Promise((done) => setTimeout(done, 100));
    const { body } = await s.call('GET', `/api/events?stream=backup-${backupId}&limit=100`);
    types = (body.events as { type: string }[]).map((e) => e.type);
  }
  t.same(types.slice(-2), ['BackupRestoreStarted', 'BackupRestoreFailed'], 'the interrupted restore is on record as failed');
  const { body } = await s.call('GET', `/api/events?stream=backup-${backupId}&limit=100`);
  const failed = (body.events as { type: string; data: Record<string, unknown> }[]).find((e) => e.type === 'BackupRestoreFailed')!;
  t.match(failed.data, { serviceId, projectId, error: /stopped while the restore ran/ });
  t.equal(await restoreRunningInto(s.app.commandContext('test'), serviceId), null, 'the service takes restores and imports again');
});
