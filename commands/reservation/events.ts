import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';

export const reservationEvents = {
  Reserved: z.object({ kind: z.string(), value: z.string(), owner: z.string() }),
  Released: z.object({ kind: z.string(), value: z.string(), owner: z.string() }),
};
export type ReservationEvent = EventsOf<typeof reservationEvents>;
export const parseReservationEvent = eventParser(reservationEvents);
