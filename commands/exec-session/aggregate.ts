import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict } from '../shared/domain-error.js';
import { parseExecSessionEvent, type ExecEndReason, type ExecSessionEvent } from './events.js';

type Started = Extract<ExecSessionEvent, { type: 'ExecSessionStarted' }>['data'];

export interface ExecSessionState {
  status: 'none' | 'open' | 'ended';
  started: Started | null;
}

const evolution: Evolution<ExecSessionState, ExecSessionEvent> = {
  category: 'execsession',
  initial: { status: 'none', started: null },
  evolve(state, event) {
    switch (event.type) {
      case 'ExecSessionStarted':
        return { status: 'open', started: event.data };
      case 'ExecSessionEnded':
        return { ...state, status: 'ended' };
      default:
        return state;
    }
  },
  parse: parseExecSessionEvent,
};

function decideStart(state: ExecSessionState, started: Started): ExecSessionEvent[] {
  if (state.status !== 'none') throw conflict('exec session already exists');
  return [{ type: 'ExecSessionStarted', data: started }];
}

/** One end per session: a second report (the socket closing after the exit) is dropped. */
function decideEnd(state: ExecSessionState, ended: { durationMs: number; exitCode: number | null; reason: ExecEndReason }): ExecSessionEvent[] {
  if (state.status !== 'open') return [];
  return [{ type: 'ExecSessionEnded', data: { durationMs: Math.max(0, Math.round(ended.durationMs)), exitCode: ended.exitCode, reason: ended.reason } }];
}

/** The exec session aggregate and its command vocabulary. */
export const execSession = defineAggregate(evolution, {
  start: decideStart,
  end: decideEnd,
});
