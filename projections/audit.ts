import type { RecordedEvent } from '../src/eventstore/port.js';
import { redactEventData } from './audit-redaction.js';
import type { Projector } from './projector.js';
import { sql } from './sql-text.js';
import { aggregateIdOf } from './stream-id.js';

const str = (value: unknown) => (typeof value === 'string' ? value : null);

/** Which projects may see an event: an expression over the stream-to-project map kept alongside. */
function visibility(event: RecordedEvent): { projectIds: string; mapping: string[] } {
  const id = aggregateIdOf(event.streamId);
  if (event.streamId.startsWith('project-')) return { projectIds: sql`array[${id}]`, mapping: [] };
  if (event.streamId.startsWith('service-')) {
    const owner = str(event.data.projectId) ?? str(event.data.toProjectId);
    const from = str(event.data.fromProjectId);
    if (owner) {
      return {
        projectIds: from ? sql`array[${from}, ${owner}]` : sql`array[${owner}]`,
        mapping: [
          sql`insert into rm_audit_streams (stream_id, project_id) values (${event.streamId}, ${owner})
              on conflict (stream_id) do update set project_id = excluded.project_id`,
        ],
      };
    }
    return {
      projectIds: sql`array(select project_id from rm_audit_streams where stream_id = ${event.streamId})`,
      mapping: [],
    };
  }
  return { projectIds: `'{}'::text[]`, mapping: [] };
}

/** The history auditors page through: every event, with its actor, and no secret. */
export const auditProjector: Projector = {
  name: 'audit',
  version: 1,
  tables: ['rm_audit_log', 'rm_audit_streams'],
  ddl: `
create table if not exists rm_audit_log (
  position text primary key,
  event_id text not null,
  stream_id text not null,
  revision integer not null,
  type text not null,
  schema_version integer not null,
  recorded_at timestamptz not null,
  actor text not null,
  correlation_id text not null,
  causation_id text,
  project_ids text[] not null,
  data jsonb not null
);
create index if not exists rm_audit_log_projects on rm_audit_log using gin (project_ids);
create table if not exists rm_audit_streams (
  stream_id text primary key,
  project_id text not null
);`,
  apply(event) {
    const { projectIds, mapping } = visibility(event);
    const m = event.metadata;
    return [
      ...mapping,
      sql`insert into rm_audit_log (position, event_id, stream_id, revision, type, schema_version, recorded_at, actor,
            correlation_id, causation_id, project_ids, data)
          values (${event.position}, ${event.id}, ${event.streamId}, ${event.revision}, ${event.type}, ${event.schemaVersion},
            ${event.recordedAt}, ${m.actor}, ${m.correlationId}, ${m.causationId}, ` +
        projectIds +
        sql`, ${redactEventData(event.data) as Record<string, unknown>})
          on conflict (position) do nothing`,
    ];
  },
};
