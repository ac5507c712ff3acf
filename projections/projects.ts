import { parseProjectEvent } from '../commands/project/events.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

export const projectsProjector: Projector = {
  name: 'projects',
  version: 1,
  tables: ['rm_projects'],
  ddl: `
create table if not exists rm_projects (
  id text primary key,
  name text not null,
  slug text not null unique,
  description text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);`,
  applyBatch: eachEventOf('project', parseProjectEvent, (event, id, at, out) => {
    switch (event.type) {
      case 'ProjectCreated':
        out.upsert({
          table: 'rm_projects',
          row: { id, ...event.data, created_at: at, updated_at: at },
          key: ['id'],
          update: ['name', 'slug', 'description', 'updated_at'],
        });
        return;
      case 'ProjectUpdated':
        out.sql(sql`update rm_projects set name = ${event.data.name}, description = ${event.data.description}, updated_at = ${at} where id = ${id}`);
        return;
      case 'ProjectDeleted':
        out.deleteOwnedBy('rm_projects', 'id', id);
        return;
    }
  }),
};
