import { parseServiceEvent } from '../commands/service/events.js';
import type { Projector } from './projector.js';
import { sql } from './sql-text.js';
import { aggregateIdOf } from './stream-id.js';

/** Values stay encrypted here; they are opened only to answer a request. */
export const envProjector: Projector = {
  name: 'env',
  version: 1,
  tables: ['rm_env'],
  ddl: `
create table if not exists rm_env (
  id text primary key,
  service_id text not null,
  key text not null,
  value text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (service_id, key)
);`,
  apply(recorded) {
    if (!recorded.streamId.startsWith('service-')) return [];
    const event = parseServiceEvent(recorded);
    const serviceId = aggregateIdOf(recorded.streamId);
    const at = recorded.recordedAt;
    switch (event?.type) {
      case 'EnvVarSet': {
        const { envId, key, value } = event.data;
        return [
          sql`insert into rm_env (id, service_id, key, value, created_at, updated_at)
              values (${envId}, ${serviceId}, ${key}, ${value}, ${at}, ${at})
              on conflict (id) do update set value = excluded.value, updated_at = excluded.updated_at`,
        ];
      }
      case 'EnvVarDeleted':
        return [sql`delete from rm_env where id = ${event.data.envId}`];
      case 'ServiceDeleted':
        return [sql`delete from rm_env where service_id = ${serviceId}`];
      default:
        return [];
    }
  },
};
