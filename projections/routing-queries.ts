import type { SqlExecutor } from '../src/db/sql-client.js';

export interface RoutingRow {
  service_id: string;
  host_port: number;
  hostnames: string[];
}

/** Every web or static service with at least one domain, and where it listens. */
export async function listRoutes(db: SqlExecutor): Promise<RoutingRow[]> {
  const { rows } = await db.query<RoutingRow>(
    `select s.id as service_id, s.host_port, array_agg(d.hostname order by d.hostname) as hostnames
     from rm_services s join rm_domains d on d.service_id = s.id
     where s.runtime_mode in ('web', 'static') and s.kind <> 'database'
     group by s.id, s.host_port
     order by s.id`,
  );
  return rows;
}

export const ROUTING_EVENT_TYPES = new Set([
  'DomainAdded',
  'DomainChanged',
  'DomainRemoved',
  'ServiceDeleted',
  'ServiceUpdated',
]);
