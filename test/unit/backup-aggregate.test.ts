import t from 'tap';
import { backup } from '../../commands/backup/aggregate.js';
import type { BackupEvent } from '../../commands/backup/events.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(backup);
const requested: Extract<BackupEvent, { type: 'BackupRequested' }>['data'] = {
  serviceId: 's', projectId: 'p', serviceSlug: 'db', engine: 'postgres', format: 'custom', storage: 'disk', trigger: 'manual',
  scheduledFor: null, localPath: 'backups/s/b.dump', remoteKey: null,
};
const wasRequested: BackupEvent = { type: 'BackupRequested', data: requested };
const succeeded: BackupEvent[] = [wasRequested, { type: 'BackupStarted', data: {} }, { type: 'BackupSucceeded', data: { sizeBytes: 10, checksum: 'sha256:ab' } }];

t.test('a backup runs once: requested, started, then one outcome', async (t) => {
  spec.given().when('request', requested).then(t, [wasRequested]);
  spec.given(wasRequested).when('request', requested).thenThrows(t, { code: 'conflict' });
  spec.given(wasRequested).when('start').then(t, [{ type: 'BackupStarted', data: {} }]);
  spec.given(wasRequested, { type: 'BackupStarted', data: {} }).when('start').then(t, [], 'started once');
  spec.given(...succeeded).when('succeed', { sizeBytes: 1, checksum: 'x' }).then(t, [], 'a late outcome is dropped');
  spec.given(...succeeded).when('fail', 'late').then(t, [], 'a succeeded backup does not fail afterwards');
  spec.given(wasRequested).when('fail', 'no').then(t, [{ type: 'BackupFailed', data: { error: 'no' } }], 'a requested one can fail before it starts');
});

t.test('restore: only a succeeded backup, only into the same engine, one at a time, one outcome', async (t) => {
  const into = { serviceId: 's2', projectId: 'p', engine: 'postgres' };
  const started: BackupEvent = { type: 'BackupRestoreStarted', data: { serviceId: 's2', projectId: 'p' } };
  spec.given(...succeeded).when('restoreStart', into).then(t, [started]);
  spec.given(...succeeded).when('restoreStart', { ...into, engine: 'mysql' }).thenThrows(t, { code: 'conflict' });
  spec.given(wasRequested).when('restoreStart', into).thenThrows(t, { code: 'conflict' });
  spec.given().when('restoreStart', into).thenThrows(t, { code: 'not_found' });
  spec.given(...succeeded, started).when('restoreStart', into).thenThrows(t, { code: 'conflict' }, 'not while it is being restored');
  spec.given(...succeeded, started).when('delete', 'retention').thenThrows(t, { code: 'conflict' }, 'nor deleted while it is being restored');

  spec.given(...succeeded, started).when('restored', into).then(t, [{ type: 'BackupRestored', data: { serviceId: 's2', projectId: 'p' } }]);
  spec.given(...succeeded, started).when('restoreFailed', into, 'no').then(t, [{ type: 'BackupRestoreFailed', data: { serviceId: 's2', projectId: 'p', error: 'no' } }]);
  spec.given(...succeeded).when('restored', into).then(t, [], 'no outcome without a start');
  const failed = spec.given(...succeeded, started, { type: 'BackupRestoreFailed', data: { serviceId: 's2', projectId: 'p', error: 'interrupted' } });
  failed.when('restored', into).then(t, [], 'a late outcome after a recovery ended it is dropped');
  t.same(failed.state.lastRestore, { serviceId: 's2', error: 'interrupted' });
  failed.when('restoreStart', into).then(t, [started], 'and it can be restored again');
});

t.test('delete: not while running, and a second delete is not found', async (t) => {
  spec.given(wasRequested).when('delete', 'request').thenThrows(t, { code: 'conflict' });
  const deleted = spec.given(...succeeded, { type: 'BackupDeleted', data: { reason: 'request' } });
  spec.given(...succeeded).when('delete', 'request').then(t, [{ type: 'BackupDeleted', data: { reason: 'request' } }]);
  deleted.when('delete', 'request').thenThrows(t, { code: 'not_found' });
  deleted.when('restoreStart', { serviceId: 's', projectId: 'p', engine: 'postgres' }).thenThrows(t, { code: 'not_found' });
});

t.test('a deletion is recorded before its copies are removed, and their removal once', async (t) => {
  spec.given(...succeeded).when('filesRemoved').then(t, [], 'nothing to record for a backup that is not deleted');
  const deleted = spec.given(...succeeded, { type: 'BackupDeleted', data: { reason: 'retention' } });
  deleted.when('filesRemoved').then(t, [{ type: 'BackupFilesRemoved', data: {} }]);
  deleted.when('filesRemoved').given().when('filesRemoved').then(t, [], 'recorded once');
});

t.test('a deleted service takes its backups: an unfinished one ends failed first; a deleted one stays as it is', async (t) => {
  const gone = { type: 'BackupDeleted', data: { reason: 'service-deleted' } } as const;
  spec.given(...succeeded).when('deleteWithService').then(t, [gone]);
  spec.given(wasRequested, { type: 'BackupStarted', data: {} }).when('deleteWithService').then(t, [
    { type: 'BackupFailed', data: { error: 'the service was deleted' } },
    gone,
  ]);
  spec.given(...succeeded, { type: 'BackupDeleted', data: { reason: 'request' } }).when('deleteWithService').then(t, [], 'already deleted');
  spec.given().when('deleteWithService').then(t, [], 'no such backup');
});
