import { parseProjectEvent } from '../commands/project/events.js';
import type { Projector } from './projector.js';
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
  apply(recorded) {
    if (!recorded.streamId.startsWith('project-')) return [];
    const event = parseProjectEvent(recorded);
    const id = aggregateIdOf(recorded.streamId);
    const at = recorded.recordedAt;
    switch (event?.type) {
      case 'ProjectCreated': {
        const { name, slug, description } = event.data;
        return [
          sql`insert into rm_projects (id, name, slug, description, created_at, updated_at)
              values (${id}, ${name}, ${slug}, ${description}, ${at}, ${at})
              on conflict (id) do update set name = excluded.name, slug = excluded.slug,
                description = excluded.description, updated_at = excluded.updated_at`,
        ];
      }
      case 'ProjectUpdated':
        return [
          sql`update rm_projects set name = ${event.data.name}, description = ${event.data.description}, updated_at = ${at}
              where id = ${id}`,
        ];
      case 'ProjectServiceAttached':
      case 'ProjectServiceDetached':
        return [sql`update rm_projects set updated_at = ${at} where id = ${id}`];
      case 'ProjectDeleted':
        return [sql`delete from rm_projects where id = ${id}`];
      default:
        return [];
    }
  },
};
