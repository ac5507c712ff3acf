import { parseSettingsEvent } from '../commands/settings/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

// The password stays in the log, sealed; the read side only knows whether one is set.
const mailEvents = eachEventOf('settings', parseSettingsEvent, (event, _id, at, out) => {
  switch (event.type) {
    case 'MailSettingsChanged': {
      const d = event.data;
      out.upsert({
        table: 'rm_mail_settings',
        row: { id: 1, host: d.host, port: d.port, tls: d.tls, username: d.username, password_set: d.password !== null, from_address: d.from, changed_at: at },
        key: ['id'],
        update: ['host', 'port', 'tls', 'username', 'password_set', 'from_address', 'changed_at'],
      });
      return;
    }
    case 'MailSettingsRemoved':
      return out.sql(sql`delete from rm_mail_settings where id = ${1}`);
  }
});

/** The installation's mail server, a projector of its own beside `settings` (one row, or none). */
export const mailSettingsProjector: Projector = {
  name: 'mail-settings',
  version: 1,
  tables: ['rm_mail_settings'],
  ddl: `
create table if not exists rm_mail_settings (
  id integer primary key,
  host text not null,
  port integer not null,
  tls text not null,
  username text,
  password_set boolean not null,
  from_address text not null,
  changed_at timestamptz not null
);`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    mailEvents(events, out);
  },
};
