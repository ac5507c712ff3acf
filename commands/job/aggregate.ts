import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, invalid, notFound } from '../shared/domain-error.js';
import { parseJobEvent, type JobEvent, type JobSettings } from './events.js';
import { parseSchedule } from './schedule.js';

export interface JobState {
  status: 'none' | 'live' | 'deleted';
  serviceId: string | null;
  settings: JobSettings | null;
}

const evolution: Evolution<JobState, JobEvent> = {
  category: 'job',
  initial: { status: 'none', serviceId: null, settings: null },
  evolve(state, event) {
    switch (event.type) {
      case 'JobCreated': {
        const { serviceId, projectId: _projectId, ...settings } = event.data;
        return { status: 'live', serviceId, settings };
      }
      case 'JobUpdated':
        return state.settings ? { ...state, settings: { ...state.settings, ...event.data.changes } } : state;
      case 'JobDeleted':
        return { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  parse: parseJobEvent,
};

type Created = Extract<JobEvent, { type: 'JobCreated' }>['data'];

/** The schedule and zone together must make a schedule that is ever due; the error names the field at fault. */
function checkSchedule(settings: Pick<JobSettings, 'schedule' | 'timezone'>) {
  const parsed = parseSchedule(settings.schedule, settings.timezone);
  if (!parsed.ok) throw invalid(parsed.field, parsed.message);
}

function decideCreate(state: JobState, created: Created): JobEvent[] {
  if (state.status !== 'none') throw conflict('job already exists');
  checkSchedule(created);
  return [{ type: 'JobCreated', data: created }];
}

function live(state: JobState): JobSettings {
  if (state.status !== 'live' || !state.settings) throw notFound('job');
  return state.settings;
}

/** Only what changes is recorded; nothing changed records nothing. */
function decideUpdate(state: JobState, changes: Partial<JobSettings>): JobEvent[] {
  const current = live(state);
  const changed = Object.fromEntries(
    Object.entries(changes).filter(([key, value]) => value !== undefined && JSON.stringify(value) !== JSON.stringify(current[key as keyof JobSettings])),
  ) as Partial<JobSettings>;
  if (Object.keys(changed).length === 0) return [];
  checkSchedule({ ...current, ...changed });
  return [{ type: 'JobUpdated', data: { changes: changed } }];
}

function decideDelete(state: JobState): JobEvent[] {
  live(state);
  return [{ type: 'JobDeleted', data: { reason: 'request' } }];
}

/** A job goes with its deleted service; a no-op for one already deleted. */
const decideDeleteWithService = (state: JobState): JobEvent[] =>
  state.status === 'live' ? [{ type: 'JobDeleted', data: { reason: 'service-deleted' } }] : [];

/** The job aggregate and its command vocabulary. */
export const job = defineAggregate(evolution, {
  create: decideCreate,
  update: decideUpdate,
  delete: decideDelete,
  deleteWithService: decideDeleteWithService,
});
