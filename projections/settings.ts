import { parseSettingsEvent } from '../commands/settings/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

// The secret stays in the log, sealed; the read side only knows that one is set.
const settingsEvents = eachEventOf('settings', parseSettingsEvent, (event, _id, at, out) => {
  switch (event.type) {
    case 'RemoteStorageConnected': {
      const d = event.data;
      out.upsert({
        table: 'rm_remote_storage',
        row: { id: 1, endpoint: d.endpoint, region: d.region, bucket: d.bucket, access_key_id: d.accessKeyId, prefix: d.prefix, force_path_style: d.forcePathStyle, connected_at: at },
        key: ['id'],
        update: ['endpoint', 'region', 'bucket', 'access_key_id', 'prefix', 'force_path_style', 'connected_at'],
      });
      return;
    }
    case 'RemoteStorageDisconnected':
      return out.sql(sql`delete from rm_remote_storage where id = ${1}`);
  }
});

export const settingsProjector: Projector = {
  name: 'settings',
  version: 1,
  tables: ['rm_remote_storage'],
  ddl: `
create table if not exists rm_remote_storage (
  id integer primary key,
  endpoint text not null,
  region text not null,
  bucket text not null,
  access_key_id text not null,
  prefix text not null,
  force_path_style boolean not null,
  connected_at timestamptz not null
);`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    settingsEvents(events, out);
  },
};
