import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { notFound } from '../shared/domain-error.js';
import { reasonText } from '../shared/printable.js';
import { parseJobRunEvent, type JobRunEnd, type JobRunEvent, type JobRunRequest, type JobRunSkip, type JobRunStart } from './events.js';

/** `queued`: requested, not yet started; `skipped`: a due time that never ran; `finished`: see `outcome`. */
export type JobRunPhase = 'none' | 'queued' | 'skipped' | 'running' | 'finished';

export interface JobRunState {
  phase: JobRunPhase;
  request: JobRunRequest | null;
  started: JobRunStart | null;
  cancelRequested: boolean;
  outcome: JobRunEnd | null;
}

const evolution: Evolution<JobRunState, JobRunEvent> = {
  category: 'jobrun',
  initial: { phase: 'none', request: null, started: null, cancelRequested: false, outcome: null },
  evolve(state, event) {
    switch (event.type) {
      case 'JobRunRequested':
        return { ...state, phase: 'queued', request: event.data };
      case 'JobRunSkipped':
        return { ...state, phase: 'skipped' };
      case 'JobRunStarted':
        return { ...state, phase: 'running', started: event.data };
      case 'JobRunCancelRequested':
        return { ...state, cancelRequested: true };
      case 'JobRunFinished':
        return { ...state, phase: 'finished', outcome: event.data };
      default:
        return state;
    }
  },
  parse: parseJobRunEvent,
};

export const isUnfinished = (state: JobRunState) => state.phase === 'queued' || state.phase === 'running';

/** A run's stream is created once: a second request of the same id (another process, a retry) records nothing. */
const decideRequest = (state: JobRunState, request: JobRunRequest): JobRunEvent[] =>
  state.phase === 'none' ? [{ type: 'JobRunRequested', data: request }] : [];

const decideSkip = (state: JobRunState, skip: JobRunSkip): JobRunEvent[] =>
  state.phase === 'none' ? [{ type: 'JobRunSkipped', data: { ...skip, reason: reasonText(skip.reason) } }] : [];

/** Only a queued run starts: one canceled or ended while it waited stays as it is. */
const decideStart = (state: JobRunState, start: JobRunStart): JobRunEvent[] =>
  state.phase === 'queued' ? [{ type: 'JobRunStarted', data: start }] : [];

/**
 * A queued run ends canceled at once (no container was started); a running one is stopped by the runner, which
 * records how it ended. A no-op once it has ended or its cancel was asked for.
 */
function decideCancel(state: JobRunState, reason: string): JobRunEvent[] {
  if (state.phase === 'none') throw notFound('job run');
  if (!isUnfinished(state) || state.cancelRequested) return [];
  const asked: JobRunEvent = { type: 'JobRunCancelRequested', data: { reason: reasonText(reason) } };
  if (state.phase === 'running') return [asked];
  return [asked, { type: 'JobRunFinished', data: { status: 'canceled', exitCode: null, durationMs: 0, reason: reasonText(reason) } }];
}

/** The first outcome counts: a late report (after a recovery or a cancel ended it) is dropped. */
const decideFinish = (state: JobRunState, end: JobRunEnd): JobRunEvent[] =>
  isUnfinished(state) ? [{ type: 'JobRunFinished', data: { ...end, reason: end.reason === null ? null : reasonText(end.reason) } }] : [];

/** The job-run aggregate and its command vocabulary. */
export const jobRun = defineAggregate(evolution, {
  request: decideRequest,
  skip: decideSkip,
  start: decideStart,
  cancel: decideCancel,
  finish: decideFinish,
});
