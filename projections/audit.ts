import type { RecordedEvent } from '../src/eventstore/port.js';
import { auditData } from './audit-redaction.js';
import type { Projector } from './projector.js';
import { aggregateIdOf } from './stream-id.js';

// Streams whose project is learnt from their own events (and kept in rm_audit_streams). `execsession`, `job`,
// `jobrun` and `jobrunlog` came with their events: no event recorded before reads differently, so the version stays.
const OWNED_STREAM = /^(service|deployment|deploymentlog|database|certificate|backup|backupsettings|import|execsession|job|jobrun|jobrunlog)-/;

const AUDIT_COLUMNS = [
  'position', 'event_id', 'stream_id', 'revision', 'type', 'schema_version', 'recorded_at', 'actor',
  'correlation_id', 'causation_id', 'project_id', 'previous_project_id', 'data',
] as const;

const str = (value: unknown) => (typeof value === 'string' ? value : null);

/** The history auditors page through: every event, with its actor, and no secret. */
export const auditProjector: Projector = {
  name: 'audit',
  version: 5,
  tables: ['rm_audit_log', 'rm_audit_streams'],
  ddl: `
create table if not exists rm_audit_log (
  position text collate "C" primary key,
  event_id text not null,
  stream_id text not null,
  revision integer not null,
  type text not null,
  schema_version integer not null,
  recorded_at timestamptz not null,
  actor text not null,
  correlation_id text not null,
  causation_id text,
  project_id text,
  previous_project_id text,
  data json not null
);
create table if not exists rm_audit_streams (
  stream_id text primary key,
  project_id text not null
);`,
  indexes: `
create index if not exists rm_audit_log_stream on rm_audit_log (stream_id, position);
create index if not exists rm_audit_log_project on rm_audit_log (project_id, position);
create index if not exists rm_audit_log_correlation on rm_audit_log (correlation_id, position);
create index if not exists rm_audit_log_actor on rm_audit_log (actor, position);
create index if not exists rm_audit_log_type on rm_audit_log (type, position);
create index if not exists rm_audit_log_previous_project on rm_audit_log (previous_project_id, position)
  where previous_project_id is not null;`,
  applyBatch(events, out) {
    // The project owning each service stream as of each event: tracked in memory for streams this batch
    // creates or moves; for the others, rm_audit_streams as it stood before the batch (written last).
    const owners = new Map<string, string>();
    const ownerOf = (event: RecordedEvent): string | null => {
      if (event.streamId.startsWith('project-')) return aggregateIdOf(event.streamId);
      if (!OWNED_STREAM.test(event.streamId)) return null;
      const owner = str(event.data.projectId) ?? str(event.data.toProjectId);
      if (owner) {
        owners.set(event.streamId, owner);
        // A deployment's (a run's) log stream belongs where the deployment (the run) does.
        if (event.streamId.startsWith('deployment-')) owners.set(`deploymentlog-${aggregateIdOf(event.streamId)}`, owner);
        if (event.streamId.startsWith('jobrun-')) owners.set(`jobrunlog-${aggregateIdOf(event.streamId)}`, owner);
        return owner;
      }
      return owners.get(event.streamId) ?? null;
    };
    const rows = events.map((event) => {
      const m = event.metadata;
      return {
        position: event.position,
        event_id: event.id,
        stream_id: event.streamId,
        revision: event.revision,
        type: event.type,
        schema_version: event.schemaVersion,
        recorded_at: event.recordedAt,
        actor: m.actor,
        correlation_id: m.correlationId,
        causation_id: m.causationId,
        project_id: ownerOf(event),
        previous_project_id: str(event.data.fromProjectId),
        data: auditData(event.type, event.data),
      };
    });
    // One insert; rows of streams created in an earlier batch take their owner from rm_audit_streams. Looked up
    // row by row through its key, and only for those rows: a join read all of rm_audit_streams for every batch.
    const ownerLookup = '(select s.project_id from rm_audit_streams s where s.stream_id = r.stream_id)';
    out.sql(
      `insert into rm_audit_log (${AUDIT_COLUMNS.join(', ')})
       select ${AUDIT_COLUMNS.map((c) => (c === 'project_id' ? `coalesce(r.project_id, ${ownerLookup})` : `r.${c}`)).join(', ')}
       from json_populate_recordset(null::rm_audit_log, $1::json) r
       on conflict (position) do nothing`,
      [JSON.stringify(rows)],
    );
    for (const [stream_id, project_id] of owners) {
      out.upsert({ table: 'rm_audit_streams', row: { stream_id, project_id }, key: ['stream_id'], update: ['project_id'] });
    }
  },
};
