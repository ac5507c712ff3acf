import { parseServiceEvent } from '../commands/service/events.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

export const domainsProjector: Projector = {
  name: 'domains',
  version: 2,
  tables: ['rm_domains'],
  ddl: `
create table if not exists rm_domains (
  id text primary key,
  service_id text not null,
  hostname text not null unique,
  status text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  dns_provider_id text,
  dns_record_type text,
  dns_target_ip text,
  dns_zone text,
  dns_applied_at timestamptz,
  certificate_status text,
  certificate_reason text,
  certificate_not_after timestamptz,
  certificate_issuer text,
  certificate_checked_at timestamptz
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
        // A new name has neither the old name's record nor its certificate.
        out.sql(sql`update rm_domains set hostname = ${event.data.hostname}, updated_at = ${at},
          dns_provider_id = null, dns_record_type = null, dns_target_ip = null, dns_zone = null, dns_applied_at = null,
          certificate_status = null, certificate_reason = null, certificate_not_after = null, certificate_issuer = null, certificate_checked_at = null
          where id = ${event.data.domainId}`);
        return;
      case 'DomainDnsRecordApplied': {
        const d = event.data;
        out.sql(sql`update rm_domains set dns_provider_id = ${d.providerId}, dns_record_type = ${d.recordType}, dns_target_ip = ${d.targetIp},
          dns_zone = ${d.zone}, dns_applied_at = ${at} where id = ${d.domainId} and hostname = ${d.hostname}`);
        return;
      }
      case 'DomainCertificateChanged': {
        const d = event.data;
        out.sql(sql`update rm_domains set certificate_status = ${d.status}, certificate_reason = ${d.reason}, certificate_not_after = ${d.notAfter},
          certificate_issuer = ${d.issuer}, certificate_checked_at = ${at} where id = ${d.domainId} and hostname = ${d.hostname}`);
        return;
      }
      case 'DomainRemoved':
        out.deleteOwnedBy('rm_domains', 'id', event.data.domainId);
        return;
      case 'ServiceDeleted':
        out.deleteOwnedBy('rm_domains', 'service_id', serviceId);
        return;
    }
  }),
};
