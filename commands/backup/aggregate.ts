import { reasonText } from '../shared/printable.js';
import type { Aggregate } from '../shared/aggregate.js';
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
}

export const backup: Aggregate<BackupState, BackupEvent> = {
  category: 'backup',
  initial: { status: 'none', deleted: false, filesRemoved: false, requested: null, checksum: null, sizeBytes: null },
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

export function decideRequest(state: BackupState, request: Requested): BackupEvent[] {
  if (state.status !== 'none') throw conflict('backup already exists');
  return [{ type: 'BackupRequested', data: request }];
}

const unfinished = (state: BackupState) => state.status === 'requested' || state.status === 'running';

export const decideStart = (state: BackupState): BackupEvent[] => (state.status === 'requested' ? [{ type: 'BackupStarted', data: {} }] : []);

/** The runner's outcome counts only while the backup runs: a late report after a recovery is dropped. */
export function decideSucceed(state: BackupState, outcome: { sizeBytes: number; checksum: string }): BackupEvent[] {
  return state.status === 'running' ? [{ type: 'BackupSucceeded', data: outcome }] : [];
}

export function decideFail(state: BackupState, error: string): BackupEvent[] {
  return unfinished(state) ? [{ type: 'BackupFailed', data: { error: reasonText(error) } }] : [];
}

function existing(state: BackupState) {
  if (state.status === 'none' || state.deleted) throw notFound('backup');
  return state.requested!;
}

/** Only a finished backup can be restored; the service it goes into must run the same engine. */
export function decideRestored(state: BackupState, into: { serviceId: string; projectId: string; engine: string }): BackupEvent[] {
  const requested = existing(state);
  if (state.status !== 'succeeded') throw conflict(`the backup has not succeeded (it is ${state.status}): there is nothing to restore`);
  if (requested.engine !== into.engine) throw conflict(`a ${requested.engine} backup cannot be restored into a ${into.engine} database`);
  return [{ type: 'BackupRestored', data: { serviceId: into.serviceId, projectId: into.projectId } }];
}

export function decideRestoreFailed(state: BackupState, into: { serviceId: string; projectId: string }, error: string): BackupEvent[] {
  existing(state);
  return [{ type: 'BackupRestoreFailed', data: { ...into, error: reasonText(error) } }];
}

/** A running backup is not deleted under the runner's feet; a second delete is a 404. */
export function decideDelete(state: BackupState, reason: 'request' | 'retention'): BackupEvent[] {
  existing(state);
  if (unfinished(state)) throw conflict('the backup is still running');
  return [{ type: 'BackupDeleted', data: { reason } }];
}

/**
 * A backup goes with its deleted service: one still unfinished (its run was stopped, or lost in a crash) ends
 * failed first. A no-op for a backup already deleted.
 */
export function decideDeleteWithService(state: BackupState): BackupEvent[] {
  if (state.status === 'none' || state.deleted) return [];
  const ended: BackupEvent[] = unfinished(state) ? [{ type: 'BackupFailed', data: { error: 'the service was deleted' } }] : [];
  return [...ended, { type: 'BackupDeleted', data: { reason: 'service-deleted' } }];
}

/** Recorded once, after the removal of a deleted backup's copies has succeeded. */
export const decideFilesRemoved = (state: BackupState): BackupEvent[] =>
  state.deleted && !state.filesRemoved ? [{ type: 'BackupFilesRemoved', data: {} }] : [];
