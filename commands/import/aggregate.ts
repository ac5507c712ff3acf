import { reasonText } from '../shared/printable.js';
import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict } from '../shared/domain-error.js';
import { parseImportEvent, type ImportEvent } from './events.js';

export type ImportStatus = 'none' | 'requested' | 'running' | 'succeeded' | 'failed';
type Requested = Extract<ImportEvent, { type: 'ImportRequested' }>['data'];

export interface ImportState {
  status: ImportStatus;
  requested: Requested | null;
}

const evolution: Evolution<ImportState, ImportEvent> = {
  category: 'import',
  initial: { status: 'none', requested: null },
  evolve(state, event) {
    switch (event.type) {
      case 'ImportRequested':
        return { status: 'requested', requested: event.data };
      case 'ImportStarted':
        return { ...state, status: 'running' };
      case 'ImportSucceeded':
        return { ...state, status: 'succeeded' };
      case 'ImportFailed':
        return { ...state, status: 'failed' };
      default:
        return state;
    }
  },
  parse: parseImportEvent,
};

const unfinished = (s: ImportState) => s.status === 'requested' || s.status === 'running';

function decideRequest(state: ImportState, request: Requested): ImportEvent[] {
  if (state.status !== 'none') throw conflict('import already exists');
  return [{ type: 'ImportRequested', data: request }];
}
const decideStart = (s: ImportState): ImportEvent[] => (s.status === 'requested' ? [{ type: 'ImportStarted', data: {} }] : []);
const decideSucceed = (s: ImportState): ImportEvent[] => (s.status === 'running' ? [{ type: 'ImportSucceeded', data: {} }] : []);
const decideFail = (s: ImportState, error: string): ImportEvent[] => (unfinished(s) ? [{ type: 'ImportFailed', data: { error: reasonText(error) } }] : []);

/** The dataImport aggregate and its command vocabulary. */
export const dataImport = defineAggregate(evolution, {
  request: decideRequest,
  start: decideStart,
  succeed: decideSucceed,
  fail: decideFail,
});
