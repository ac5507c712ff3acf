import { parseReservationEvent } from '../commands/reservation/events.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

export type ReservationOwnerType = 'project' | 'service';

/**
 * Whose aggregate a reservation belongs to: a project slug to the project; a service name, host port or
 * hostname to a service (a custom domain's hostname is owned by `<serviceId>/<domainId>`).
 */
export function reservationOwner(kind: string, owner: string): { type: ReservationOwnerType; id: string } {
  const slash = owner.indexOf('/');
  return { type: kind === 'project-slug' ? 'project' : 'service', id: slash < 0 ? owner : owner.slice(0, slash) };
}

/** Who holds each reserved value (slugs, service names, hostnames, host ports), by owner: what a retirement gives back. */
export const reservationsProjector: Projector = {
  name: 'reservations',
  version: 1,
  tables: ['rm_reservations'],
  ddl: `
create table if not exists rm_reservations (
  kind text not null,
  value text not null,
  owner text not null,
  owner_id text not null,
  owner_type text not null,
  reserved_at timestamptz not null,
  primary key (kind, value)
);`,
  indexes: `
create index if not exists rm_reservations_owner on rm_reservations (owner_id);
create index if not exists rm_reservations_age on rm_reservations (reserved_at);`,
  applyBatch: eachEventOf('reservation', parseReservationEvent, (event, _id, at, out) => {
    const { kind, value, owner } = event.data;
    switch (event.type) {
      case 'Reserved': {
        const of = reservationOwner(kind, owner);
        out.upsert({
          table: 'rm_reservations',
          row: { kind, value, owner, owner_id: of.id, owner_type: of.type, reserved_at: at },
          key: ['kind', 'value'],
          update: ['owner', 'owner_id', 'owner_type', 'reserved_at'],
        });
        return;
      }
      case 'Released':
        out.sql(sql`delete from rm_reservations where kind = ${kind} and value = ${value} and owner = ${owner}`);
        return;
    }
  }),
};
