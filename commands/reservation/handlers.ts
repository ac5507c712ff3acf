import type { CommandContext } from '../shared/command-context.js';
import { execute } from '../shared/execute.js';
import { reservation, reservationId, type ReservationKind } from './aggregate.js';

export async function reserve(ctx: CommandContext, kind: ReservationKind, value: string, owner: string, describe: string) {
  return execute(ctx, reservation, reservationId(kind, value), (s) => reservation.decide.reserve(s, kind, value, owner, describe));
}

export async function release(ctx: CommandContext, kind: ReservationKind, value: string, owner: string) {
  return execute(ctx, reservation, reservationId(kind, value), (s) => reservation.decide.release(s, kind, value, owner));
}
