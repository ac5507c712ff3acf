import t from 'tap';
import {
  backup,
  decideDelete,
  decideDeleteWithService,
  decideFail,
  decideFilesRemoved,
  decideRequest,
  decideRestoreFailed,
  decideRestoreStart,
  decideRestored,
  decideStart,
  decideSucceed,
  type BackupState,
} from '../../commands/backup/aggregate.js';
import type { BackupEvent } from '../../commands/backup/events.js';
import { DomainError } from '../../commands/shared/domain-error.js';

const requested: Extract<BackupEvent, { type: 'BackupRequested' }>['data'] = {
  serviceId: 's', projectId: 'p', serviceSlug: 'db', engine: 'postgres', format: 'custom', storage: 'disk', trigger: 'manual',
  scheduledFor: null, localPath: 'backups/s/b.dump', remoteKey: null,
};
const given = (...events: BackupEvent[]): BackupState => events.reduce(backup.evolve, backup.initial);
const code = (fn: () => unknown) => {
  try {
    fn();
    return null;
  } catch (error) {
    return error instanceof DomainError ? error.code : 'other';
  }
};
const succeeded: BackupEvent[] = [{ type: 'BackupRequested', data: requested }, { type: 'BackupStarted', data: {} }, { type: 'BackupSucceeded', data: { sizeBytes: 10, checksum: 'sha256:ab' } }];

t.test('a backup runs once: requested, started, then one outcome', async (t) => {
  t.same(decideRequest(given(), requested), [{ type: 'BackupRequested', data: requested }]);
  t.equal(code(() => decideRequest(given({ type: 'BackupRequested', data: requested }), requested)), 'conflict');
  t.same(decideStart(given({ type: 'BackupRequested', data: requested })), [{ type: 'BackupStarted', data: {} }]);
  t.same(decideStart(given({ type: 'BackupRequested', data: requested }, { type: 'BackupStarted', data: {} })), [], 'started once');
  t.same(decideSucceed(given(...succeeded), { sizeBytes: 1, checksum: 'x' }), [], 'a late outcome is dropped');
  t.same(decideFail(given(...succeeded), 'late'), [], 'a succeeded backup does not fail afterwards');
  t.same(decideFail(given({ type: 'BackupRequested', data: requested }), 'no'), [{ type: 'BackupFailed', data: { error: 'no' } }], 'a requested one can fail before it starts');
});

t.test('restore: only a succeeded backup, only into the same engine, one at a time, one outcome', async (t) => {
  const into = { serviceId: 's2', projectId: 'p', engine: 'postgres' };
  const started: BackupEvent = { type: 'BackupRestoreStarted', data: { serviceId: 's2', projectId: 'p' } };
  t.same(decideRestoreStart(given(...succeeded), into), [started]);
  t.equal(code(() => decideRestoreStart(given(...succeeded), { ...into, engine: 'mysql' })), 'conflict');
  t.equal(code(() => decideRestoreStart(given({ type: 'BackupRequested', data: requested }), into)), 'conflict');
  t.equal(code(() => decideRestoreStart(given(), into)), 'not_found');
  t.equal(code(() => decideRestoreStart(given(...succeeded, started), into)), 'conflict', 'not while it is being restored');
  t.equal(code(() => decideDelete(given(...succeeded, started), 'retention')), 'conflict', 'nor deleted while it is being restored');

  t.same(decideRestored(given(...succeeded, started), into), [{ type: 'BackupRestored', data: { serviceId: 's2', projectId: 'p' } }]);
  t.same(decideRestoreFailed(given(...succeeded, started), into, 'no'), [{ type: 'BackupRestoreFailed', data: { serviceId: 's2', projectId: 'p', error: 'no' } }]);
  t.same(decideRestored(given(...succeeded), into), [], 'no outcome without a start');
  const failed = given(...succeeded, started, { type: 'BackupRestoreFailed', data: { serviceId: 's2', projectId: 'p', error: 'interrupted' } });
  t.same(decideRestored(failed, into), [], 'a late outcome after a recovery ended it is dropped');
  t.same(failed.lastRestore, { serviceId: 's2', error: 'interrupted' });
  t.same(decideRestoreStart(failed, into), [started], 'and it can be restored again');
});

t.test('delete: not while running, and a second delete is not found', async (t) => {
  t.equal(code(() => decideDelete(given({ type: 'BackupRequested', data: requested }), 'request')), 'conflict');
  const deleted = given(...succeeded, { type: 'BackupDeleted', data: { reason: 'request' } });
  t.same(decideDelete(given(...succeeded), 'request'), [{ type: 'BackupDeleted', data: { reason: 'request' } }]);
  t.equal(code(() => decideDelete(deleted, 'request')), 'not_found');
  t.equal(code(() => decideRestoreStart(deleted, { serviceId: 's', projectId: 'p', engine: 'postgres' })), 'not_found');
});

t.test('a deletion is recorded before its copies are removed, and their removal once', async (t) => {
  t.same(decideFilesRemoved(given(...succeeded)), [], 'nothing to record for a backup that is not deleted');
  const deleted = given(...succeeded, { type: 'BackupDeleted', data: { reason: 'retention' } });
  t.same(decideFilesRemoved(deleted), [{ type: 'BackupFilesRemoved', data: {} }]);
  t.same(decideFilesRemoved(backup.evolve(deleted, { type: 'BackupFilesRemoved', data: {} })), [], 'recorded once');
});

t.test('a deleted service takes its backups: an unfinished one ends failed first; a deleted one stays as it is', async (t) => {
  const gone = { type: 'BackupDeleted', data: { reason: 'service-deleted' } } as const;
  t.same(decideDeleteWithService(given(...succeeded)), [gone]);
  t.same(decideDeleteWithService(given({ type: 'BackupRequested', data: requested }, { type: 'BackupStarted', data: {} })), [
    { type: 'BackupFailed', data: { error: 'the service was deleted' } },
    gone,
  ]);
  t.same(decideDeleteWithService(given(...succeeded, { type: 'BackupDeleted', data: { reason: 'request' } })), [], 'already deleted');
  t.same(decideDeleteWithService(given()), [], 'no such backup');
});
