import type { SqlExecutor } from '../src/db/sql-client.js';

export interface RoutingRow {
  service_id: string;
  host_port: number;
  /** Loopback port of the current container; null until a deployment has released one. */
  upstream_port: number | null;
  hostnames: string[];
  /** Whether it is stopped on request: its routes then answer 503. */
  stopped: boolean;
  /** `swarm:<service>` when the release runs as a Swarm service (cluster mode). */
  current_container: string | null;
  internal_port: number;
}

/** Every web or static service that has a running release or at least one domain. */
export async function listRoutes(db: SqlExecutor): Promise<RoutingRow[]> {
  const { rows } = await db.query<RoutingRow>(
    `select s.id as service_id, s.host_port, s.upstream_port, s.current_container, s.internal_port,
       coalesce(array_agg(d.hostname order by d.hostname) filter (where d.hostname is not null), '{}') as hostnames,
       s.status = 'stopped' as stopped
     from rm_services s left join rm_domains d on d.service_id = s.id
     where s.runtime_mode in ('web', 'static') and s.kind <> 'database'
     group by s.id, s.host_port, s.upstream_port, s.status, s.current_container, s.internal_port
     having s.upstream_port is not null or count(d.hostname) > 0
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
  'ServiceReleased',
  'ServiceStopped',
  // HTTPS on or off, another ACME directory or account.
  'GeneralSettingsChanged',
]);
