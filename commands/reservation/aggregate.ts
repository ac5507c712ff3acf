import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict } from '../shared/domain-error.js';
import { parseReservationEvent, type ReservationEvent } from './events.js';

/** Uniqueness across streams: one stream per reserved value, claimed with an expected revision. */
export type ReservationKind = 'project-slug' | 'service-name' | 'hostname' | 'host-port' | 'database-restore' | 'job-name';

export interface ReservationState {
  owner: string | null;
}

const evolution: Evolution<ReservationState, ReservationEvent> = {
  category: 'reservation',
  initial: { owner: null },
  evolve: (_state, event) => ({ owner: event.type === 'Reserved' ? event.data.owner : null }),
  parse: parseReservationEvent,
};

export const reservationId = (kind: ReservationKind, value: string) => `${kind}-${value}`;

function decideReserve(
  state: ReservationState,
  kind: ReservationKind,
  value: string,
  owner: string,
  describe: string,
): ReservationEvent[] {
  if (state.owner === owner) return [];
  if (state.owner !== null) throw conflict(`${describe} is already taken`);
  return [{ type: 'Reserved', data: { kind, value, owner } }];
}

function decideRelease(state: ReservationState, kind: ReservationKind, value: string, owner: string): ReservationEvent[] {
  return state.owner === owner ? [{ type: 'Released', data: { kind, value, owner } }] : [];
}

/** The reservation aggregate and its command vocabulary. */
export const reservation = defineAggregate(evolution, {
  reserve: decideReserve,
  release: decideRelease,
});
