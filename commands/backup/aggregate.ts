import { reasonText } from '../shared/printable.js';
import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, notFound } from '../shared/domain-error.js';
import { parseBackupEvent, type BackupEvent } from './events.js';

/** `requested` and `running` are both `running` to API clients: requested means it will run. */
export type BackupStatus = 'none' | 'requested' | 'running' | 'succeeded' | 'failed';

export interface BackupState {
  status: BackupStatus;
  deleted: boolean;
  /** A deleted backup's file and object are gone (BackupFilesRemoved). */
  filesRemoved: boolean;
  requested: Extract<BackupEvent, { type: 'BackupRequested' }>['data'] | null;
  checksum: string | null;
  sizeBytes: number | null;
  /** The service a restore of this backup is running into, from its start to its outcome. */
  restoringInto: { serviceId: string; projectId: string } | null;
  /** How the latest restore ended: what a retry of its request answers with. */
  lastRestore: { serviceId: string; error: string | null } | null;
}

const evolution: Evolution<BackupState, BackupEvent> = {
  category: 'backup',
  initial: { status: 'none', deleted: false, filesRemoved: false, requested: null, checksum: null, sizeBytes: null, restoringInto: null, lastRestore: null },
  evolve(state, event) {
    switch (event.type) {
      case 'BackupRequested':
        return { ...state, status: 'requested', requested: event.data };
      case 'BackupStarted':
        return { ...state, status: 'running' };
      case 'BackupSucceeded':
        return { ...state, status: 'succeeded', checksum: event.data.checksum, sizeBytes: event.data.sizeBytes };
      case 'BackupFailed':
        return { ...state, status: 'failed' };
      case 'BackupRestoreStarted':
        return { ...state, restoringInto: event.data };
      case 'BackupRestored':
        return { ...state, restoringInto: null, lastRestore: { serviceId: event.data.serviceId, error: null } };
      case 'BackupRestoreFailed':
        return { ...state, restoringInto: null, lastRestore: { serviceId: event.data.serviceId, error: event.data.error } };
      case 'BackupDeleted':
        return { ...state, deleted: true };
      case 'BackupFilesRemoved':
        return { ...state, filesRemoved: true };
      default:
        return state;
    }
  },
  parse: parseBackupEvent,
};

type Requested = Extract<BackupEvent, { type: 'BackupRequested' }>['data'];

function decideRequest(state: BackupState, request: Requested): BackupEvent[] {
  if (state.status !== 'none') throw conflict('backup already exists');
  return [{ type: 'BackupRequested', data: request }];
}

const unfinished = (state: BackupState) => state.status === 'requested' || state.status === 'running';

const decideStart = (state: BackupState): BackupEvent[] => (state.status === 'requested' ? [{ type: 'BackupStarted', data: {} }] : []);

/** The runner's outcome counts only while the backup runs: a late report after a recovery is dropped. */
function decideSucceed(state: BackupState, outcome: { sizeBytes: number; checksum: string }): BackupEvent[] {
  return state.status === 'running' ? [{ type: 'BackupSucceeded', data: outcome }] : [];
}

function decideFail(state: BackupState, error: string): BackupEvent[] {
  return unfinished(state) ? [{ type: 'BackupFailed', data: { error: reasonText(error) } }] : [];
}

function existing(state: BackupState) {
  if (state.status === 'none' || state.deleted) throw notFound('backup');
  return state.requested!;
}

/**
 * Only a finished backup can be restored, into a service of the same engine, and one restore of it at a
 * time (one restore per service at a time is the `database-restore` reservation's job).
 */
function decideRestoreStart(state: BackupState, into: { serviceId: string; projectId: string; engine: string }): BackupEvent[] {
  const requested = existing(state);
  if (state.status !== 'succeeded') throw conflict(`the backup has not succeeded (it is ${state.status}): there is nothing to restore`);
  if (requested.engine !== into.engine) throw conflict(`a ${requested.engine} backup cannot be restored into a ${into.engine} database`);
  if (state.restoringInto !== null) throw conflict('a restore of this backup is already running: wait for it to end');
  return [{ type: 'BackupRestoreStarted', data: { serviceId: into.serviceId, projectId: into.projectId } }];
}

/** An outcome counts only for the restore that runs: one a recovery already ended is dropped. */
function decideRestored(state: BackupState, into: { serviceId: string; projectId: string }): BackupEvent[] {
  return state.restoringInto?.serviceId === into.serviceId ? [{ type: 'BackupRestored', data: { serviceId: into.serviceId, projectId: into.projectId } }] : [];
}

function decideRestoreFailed(state: BackupState, into: { serviceId: string; projectId: string }, error: string): BackupEvent[] {
  return state.restoringInto?.serviceId === into.serviceId ? [{ type: 'BackupRestoreFailed', data: { serviceId: into.serviceId, projectId: into.projectId, error: reasonText(error) } }] : [];
}

/** A running backup is not deleted under the runner's feet; a second delete is a 404. */
function decideDelete(state: BackupState, reason: 'request' | 'retention'): BackupEvent[] {
  existing(state);
  if (unfinished(state)) throw conflict('the backup is still running');
  if (state.restoringInto) throw conflict('the backup is being restored; delete it once the restore has ended');
  return [{ type: 'BackupDeleted', data: { reason } }];
}

/**
 * A backup goes with its deleted service: one still unfinished (its run was stopped, or lost in a crash) ends
 * failed first. A no-op for a backup already deleted.
 */
function decideDeleteWithService(state: BackupState): BackupEvent[] {
  if (state.status === 'none' || state.deleted) return [];
  const ended: BackupEvent[] = unfinished(state) ? [{ type: 'BackupFailed', data: { error: 'the service was deleted' } }] : [];
  return [...ended, { type: 'BackupDeleted', data: { reason: 'service-deleted' } }];
}

/** Recorded once, after the removal of a deleted backup's copies has succeeded. */
const decideFilesRemoved = (state: BackupState): BackupEvent[] =>
  state.deleted && !state.filesRemoved ? [{ type: 'BackupFilesRemoved', data: {} }] : [];

/** The backup aggregate and its command vocabulary. */
export const backup = defineAggregate(evolution, {
  request: decideRequest,
  start: decideStart,
  succeed: decideSucceed,
  fail: decideFail,
  restoreStart: decideRestoreStart,
  restored: decideRestored,
  restoreFailed: decideRestoreFailed,
  delete: decideDelete,
  deleteWithService: decideDeleteWithService,
  filesRemoved: decideFilesRemoved,
});
