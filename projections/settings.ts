import { parseSettingsEvent } from '../commands/settings/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import { GENERAL_COLUMNS, IMAGE_COLUMNS } from './settings-queries.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql, type Literal } from './sql-text.js';

// Secrets stay in the log, sealed; the read side only knows that one is set.
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
    case 'GeneralSettingsChanged': {
      const present = (Object.keys(GENERAL_COLUMNS) as (keyof typeof GENERAL_COLUMNS)[]).filter((k) => event.data[k] !== undefined);
      const row: Record<string, Literal> = { id: 1, updated_at: at };
      for (const key of Object.keys(GENERAL_COLUMNS) as (keyof typeof GENERAL_COLUMNS)[]) row[GENERAL_COLUMNS[key]] = event.data[key] ?? null;
      out.upsert({ table: 'rm_general_settings', row, key: ['id'], update: [...present.map((k) => GENERAL_COLUMNS[k]), 'updated_at'] });
      return;
    }
    case 'DnsProviderConnected':
      out.upsert({
        table: 'rm_dns_providers',
        row: { provider_id: event.data.providerId, visible: event.data.visible, zones: event.data.zones, connected_at: at },
        key: ['provider_id'],
        update: ['visible', 'zones', 'connected_at'],
      });
      return;
    case 'DnsProviderDisconnected':
      return out.deleteOwnedBy('rm_dns_providers', 'provider_id', event.data.providerId);
    case 'AiProviderConnected': {
      const d = event.data;
      out.upsert({
        table: 'rm_ai_providers',
        row: { provider_id: d.providerId, base_url: d.baseUrl, has_api_key: d.apiKey !== null, default_model: d.defaultModel, models: d.models, connected_at: at },
        key: ['provider_id'],
        update: ['base_url', 'has_api_key', 'default_model', 'models', 'connected_at'],
      });
      return;
    }
    case 'AiProviderDisconnected':
      return out.deleteOwnedBy('rm_ai_providers', 'provider_id', event.data.providerId);
  }
});

export const settingsProjector: Projector = {
  name: 'settings',
  version: 9,
  tables: ['rm_remote_storage', 'rm_general_settings', 'rm_dns_providers', 'rm_ai_providers'],
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
);
create table if not exists rm_general_settings (
  id integer primary key,
  root_domain text,
  public_ip text,
  acme_email text,
  acme_directory_url text,
  https_enabled boolean,
  allowed_destinations jsonb,
  deny_private_destinations boolean,
  api_domain text,
  updated_at timestamptz not null,
  default_resources jsonb,
  session_idle_minutes integer,
  session_max_hours integer,
  require_two_factor boolean,
  ${Object.values(IMAGE_COLUMNS).map((column) => `${column} text`).join(',\n  ')}
);
create table if not exists rm_dns_providers (
  provider_id text primary key,
  visible jsonb not null,
  zones jsonb not null,
  connected_at timestamptz not null
);
create table if not exists rm_ai_providers (
  provider_id text primary key,
  base_url text,
  has_api_key boolean not null,
  default_model text,
  models jsonb not null,
  connected_at timestamptz not null
);`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    settingsEvents(events, out);
  },
};
