import { parseServiceEvent } from '../commands/service/events.js';
import type { Projector } from './projector.js';
import { sql } from './sql-text.js';
import { aggregateIdOf } from './stream-id.js';

export const domainsProjector: Projector = {
  name: 'domains',
  version: 1,
  tables: ['rm_domains'],
  ddl: `
create table if not exists rm_domains (
  id text primary key,
  service_id text not null,
  hostname text not null unique,
  status text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index if not exists rm_domains_service on rm_domains (service_id);`,
  apply(recorded) {
    if (!recorded.streamId.startsWith('service-')) return [];
    const event = parseServiceEvent(recorded);
    const serviceId = aggregateIdOf(recorded.streamId);
    const at = recorded.recordedAt;
    switch (event?.type) {
      case 'DomainAdded':
        return [
          sql`insert into rm_domains (id, service_id, hostname, status, created_at, updated_at)
              values (${event.data.domainId}, ${serviceId}, ${event.data.hostname}, 'active', ${at}, ${at})
              on conflict (id) do update set hostname = excluded.hostname`,
        ];
      case 'DomainChanged':
        return [sql`update rm_domains set hostname = ${event.data.hostname}, updated_at = ${at} where id = ${event.data.domainId}`];
      case 'DomainRemoved':
        return [sql`delete from rm_domains where id = ${event.data.domainId}`];
      case 'ServiceDeleted':
        return [sql`delete from rm_domains where service_id = ${serviceId}`];
      default:
        return [];
    }
  },
};
