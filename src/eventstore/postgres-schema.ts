export const EVENT_STORE_DDL = `
create table if not exists es_streams (
  stream_id text primary key,
  revision bigint not null
);
create table if not exists es_events (
  global_position bigint generated always as identity primary key,
  transaction_id xid8 not null default pg_current_xact_id(),
  event_id uuid not null unique,
  stream_id text not null,
  revision bigint not null,
  type text not null,
  schema_version integer not null,
  data jsonb not null,
  metadata jsonb not null,
  recorded_at timestamptz not null default now(),
  unique (stream_id, revision)
);
create index if not exists es_events_order on es_events (transaction_id, global_position);
`;

export const EVENTS_CHANNEL = 'slipway_events';
