import { parseOidcSettingsEvent } from '../commands/settings/oidc-events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

// The client secret stays in the log, sealed; the read side only knows that one is set.
const oidcEvents = eachEventOf('settings', parseOidcSettingsEvent, (event, _id, at, out) => {
  switch (event.type) {
    case 'OidcConfigured': {
      const d = event.data;
      out.upsert({
        table: 'rm_oidc_settings',
        row: {
          id: 1,
          issuer: d.issuer,
          client_id: d.clientId,
          name: d.name,
          allowed_domains: d.allowedDomains,
          default_role: d.defaultRole,
          groups_claim: d.groupsClaim,
          group_roles: d.groupRoles,
          configured_at: at,
        },
        key: ['id'],
        update: ['issuer', 'client_id', 'name', 'allowed_domains', 'default_role', 'groups_claim', 'group_roles', 'configured_at'],
      });
      return;
    }
    case 'OidcRemoved':
      return out.sql(sql`delete from rm_oidc_settings where id = ${1}`);
  }
});

/** Single sign-on's settings: a projector of its own beside `settings`, so each can change its version alone. */
export const oidcSettingsProjector: Projector = {
  name: 'settings-oidc',
  version: 1,
  tables: ['rm_oidc_settings'],
  ddl: `
create table if not exists rm_oidc_settings (
  id integer primary key,
  issuer text not null,
  client_id text not null,
  name text not null,
  allowed_domains jsonb not null,
  default_role text,
  groups_claim text,
  group_roles jsonb not null,
  configured_at timestamptz not null
);`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    oidcEvents(events, out);
  },
};
