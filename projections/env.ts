import { parseServiceEvent } from '../commands/service/events.js';
import { eachEventOf, type Projector } from './projector.js';

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
  applyBatch: eachEventOf('service', parseServiceEvent, (event, serviceId, at, out) => {
    switch (event.type) {
      case 'EnvVarSet': {
        const { envId, key, value } = event.data;
        out.upsert({
          table: 'rm_env',
          row: { id: envId, service_id: serviceId, key, value, created_at: at, updated_at: at },
          key: ['id'],
          update: ['value', 'updated_at'],
        });
        return;
      }
      case 'EnvVarDeleted':
        out.deleteOwnedBy('rm_env', 'id', event.data.envId);
        return;
      case 'ServiceDeleted':
        out.deleteOwnedBy('rm_env', 'service_id', serviceId);
        return;
    }
  }),
};
