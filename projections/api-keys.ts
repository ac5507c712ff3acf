import { parseApiKeyEvent } from '../commands/api-key/events.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

export const apiKeysProjector: Projector = {
  name: 'api-keys',
  version: 2,
  tables: ['rm_api_keys'],
  ddl: `
create table if not exists rm_api_keys (
  id text primary key,
  name text not null,
  access text not null,
  project_ids jsonb,
  secret_hash text not null unique,
  prefix text not null,
  owner_user_id text,
  created_at timestamptz not null,
  revoked_at timestamptz
);`,
  applyBatch: eachEventOf('apikey', parseApiKeyEvent, (event, id, at, out) => {
    switch (event.type) {
      case 'ApiKeyCreated': {
        const { name, access, scope, secretHash, prefix, ownerUserId } = event.data;
        // The read model keeps null for "every project": what the auth check and the API answer with.
        const projectIds = scope.kind === 'all' ? null : scope.projectIds;
        out.upsert({
          table: 'rm_api_keys',
          row: { id, name, access, project_ids: projectIds, secret_hash: secretHash, prefix, owner_user_id: ownerUserId, created_at: at },
          key: ['id'],
          update: [],
        });
        return;
      }
      case 'ApiKeyRevoked':
        out.sql(sql`update rm_api_keys set revoked_at = ${at} where id = ${id}`);
        return;
    }
  }),
};
