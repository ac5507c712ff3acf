import { parseServiceEvent } from '../commands/service/events.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

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
);`,
  indexes: `
create index if not exists rm_domains_service on rm_domains (service_id);`,
  applyBatch: eachEventOf('service', parseServiceEvent, (event, serviceId, at, out) => {
    switch (event.type) {
      case 'DomainAdded':
        out.upsert({
          table: 'rm_domains',
          row: { id: event.data.domainId, service_id: serviceId, hostname: event.data.hostname, status: 'active', created_at: at, updated_at: at },
          key: ['id'],
          update: ['hostname'],
        });
        return;
      case 'DomainChanged':
        out.sql(sql`update rm_domains set hostname = ${event.data.hostname}, updated_at = ${at} where id = ${event.data.domainId}`);
        return;
      case 'DomainRemoved':
        out.sql(sql`delete from rm_domains where id = ${event.data.domainId}`);
        return;
      case 'ServiceDeleted':
        out.sql(sql`delete from rm_domains where service_id = ${serviceId}`);
        return;
    }
  }),
};
