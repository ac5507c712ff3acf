import { parseProjectEvent } from '../commands/project/events.js';
import { perEvent, type Projector } from './projector.js';
import { sql } from './sql-text.js';
import { aggregateIdOf } from './stream-id.js';

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
  applyBatch: perEvent((recorded, out) => {
    if (!recorded.streamId.startsWith('project-')) return;
    const event = parseProjectEvent(recorded);
    const id = aggregateIdOf(recorded.streamId);
    const at = recorded.recordedAt;
    switch (event?.type) {
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
        out.sql(sql`delete from rm_projects where id = ${id}`);
        return;
    }
  }),
};
