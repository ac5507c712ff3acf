import type { ReservationKind } from '../commands/reservation/aggregate.js';
import type { SqlExecutor } from '../src/db/sql-client.js';
import type { ReservationOwnerType } from './reservations.js';

export interface ReservationRow {
  kind: ReservationKind;
  value: string;
  owner: string;
  owner_id: string;
  owner_type: ReservationOwnerType;
  reserved_at: Date | string;
}

/** Everything `ownerId` holds: under its own id and under `<ownerId>/…` (a service's custom domains). */
export async function reservationsOwnedBy(db: SqlExecutor, ownerId: string): Promise<ReservationRow[]> {
  const { rows } = await db.query<ReservationRow>('select * from rm_reservations where owner_id = $1 order by kind, value', [ownerId]);
  return rows;
}

/** Every value of one kind that is held now, oldest first. */
export async function reservationsOfKind(db: SqlExecutor, kind: ReservationKind): Promise<ReservationRow[]> {
  const { rows } = await db.query<ReservationRow>('select * from rm_reservations where kind = $1 order by reserved_at', [kind]);
  return rows;
}

/**
 * Reservations taken before `cutoff` whose owner is no live project or service in the read models: left by a
 * creation that never finished, or held by a deleted owner. Candidates only: the caller checks the owner's stream.
 */
export async function strayReservations(db: SqlExecutor, cutoff: Date, limit = 500): Promise<ReservationRow[]> {
  const { rows } = await db.query<ReservationRow>(
    `select r.* from rm_reservations r
     where r.reserved_at < $1
       and not (r.owner_type = 'service' and exists (select 1 from rm_services s where s.id = r.owner_id))
       and not (r.owner_type = 'project' and exists (select 1 from rm_projects p where p.id = r.owner_id))
     order by r.reserved_at, r.kind, r.value
     limit $2`,
    [cutoff.toISOString(), limit],
  );
  return rows;
}
