import { parseJobEvent } from '../commands/job/events.js';
import { parseServiceEvent } from '../commands/service/events.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';
import type { RecordedEvent } from '../src/eventstore/port.js';

const jobEvents = eachEventOf('job', parseJobEvent, (event, id, at, out) => {
  switch (event.type) {
    case 'JobCreated': {
      const d = event.data;
      out.upsert({
        table: 'rm_jobs',
        row: {
          id, service_id: d.serviceId, name: d.name, schedule: d.schedule, timezone: d.timezone, command: JSON.stringify(d.command),
          timeout_seconds: d.timeoutSeconds, concurrency: d.concurrency, enabled: d.enabled, deleting: false, schedule_since: at, created_at: at, updated_at: at,
        },
        key: ['id'],
        update: [],
      });
      return;
    }
    case 'JobUpdated': {
      const c = event.data.changes;
      const sets = [sql`updated_at = ${at}`];
      if (c.name !== undefined) sets.push(sql`name = ${c.name}`);
      if (c.schedule !== undefined) sets.push(sql`schedule = ${c.schedule}`);
      if (c.timezone !== undefined) sets.push(sql`timezone = ${c.timezone}`);
      if (c.command !== undefined) sets.push(sql`command = ${JSON.stringify(c.command)}`);
      if (c.timeoutSeconds !== undefined) sets.push(sql`timeout_seconds = ${c.timeoutSeconds}`);
      if (c.concurrency !== undefined) sets.push(sql`concurrency = ${c.concurrency}`);
      if (c.enabled !== undefined) sets.push(sql`enabled = ${c.enabled}`);
      // Due times before a new schedule, zone or (re-)enabling were never this job's: none of them is "missed".
      if (c.schedule !== undefined || c.timezone !== undefined || c.enabled !== undefined) sets.push(sql`schedule_since = ${at}`);
      return out.updateById('rm_jobs', id, sets.join(', '));
    }
    case 'JobDeleted':
      return out.deleteOwnedBy('rm_jobs', 'id', id);
  }
});

// A deleted service's jobs are gone for its users at once; the job scheduler records their JobDeleted, caused by the deletion.
const serviceDeletions = eachEventOf('service', parseServiceEvent, (event, serviceId, _at, out) => {
  if (event.type === 'ServiceDeleted') out.sql(sql`update rm_jobs set deleting = true where service_id = ${serviceId}`);
});

/** The scheduled jobs of app and worker services (`job-<id>` streams). Their runs are the job_runs read model's. */
export const jobsProjector: Projector = {
  name: 'jobs',
  version: 1,
  tables: ['rm_jobs'],
  ddl: `
create table if not exists rm_jobs (
  id text primary key,
  service_id text not null,
  name text not null,
  schedule text not null,
  timezone text not null,
  command text not null,
  timeout_seconds integer not null,
  concurrency text not null,
  enabled boolean not null,
  deleting boolean not null default false,
  schedule_since timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);`,
  indexes: `
create index if not exists rm_jobs_service on rm_jobs (service_id, created_at);`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    for (const event of events) {
      jobEvents([event], out);
      serviceDeletions([event], out);
    }
  },
};
