import { parseImportEvent } from '../commands/import/events.js';
import { parseServiceEvent } from '../commands/service/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

// The sealed source URL stays in the log: the read side has only its label, without the password.
const importEvents = eachEventOf('import', parseImportEvent, (event, id, at, out) => {
  const set = (assignments: string) => out.updateById('rm_imports', id, assignments);
  switch (event.type) {
    case 'ImportRequested': {
      const d = event.data;
      out.upsert({
        table: 'rm_imports',
        row: { id, service_id: d.serviceId, project_id: d.projectId, engine: d.engine, source: d.source, source_label: d.sourceLabel, status: 'running', created_at: at, started_at: at },
        key: ['id'],
        update: [],
      });
      return;
    }
    case 'ImportStarted':
      return set('run_started = true');
    case 'ImportSucceeded':
      return set(sql`status = 'succeeded', finished_at = ${at}`);
    case 'ImportFailed':
      return set(sql`status = 'failed', error = ${event.data.error}, finished_at = ${at}`);
  }
});

// Kept until the service is retired: retirement shreds each import's data key, and finds them here.
const serviceRetirements = eachEventOf('service', parseServiceEvent, (event, serviceId, _at, out) => {
  if (event.type === 'ServiceRetired') out.deleteOwnedBy('rm_imports', 'service_id', serviceId);
});

export const importsProjector: Projector = {
  name: 'imports',
  version: 2,
  tables: ['rm_imports'],
  ddl: `
create table if not exists rm_imports (
  id text primary key,
  service_id text not null,
  project_id text not null,
  engine text not null,
  source text not null,
  source_label text not null,
  status text not null,
  error text,
  run_started boolean not null default false,
  created_at timestamptz not null,
  started_at timestamptz not null,
  finished_at timestamptz
);`,
  indexes: `create index if not exists rm_imports_service on rm_imports (service_id, created_at desc);`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    for (const event of events) {
      importEvents([event], out);
      serviceRetirements([event], out);
    }
  },
};
