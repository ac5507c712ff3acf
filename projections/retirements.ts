import { parseProjectEvent } from '../commands/project/events.js';
import { parseServiceEvent } from '../commands/service/events.js';
import { eachEventOf, type Projector } from './projector.js';
import type { BatchWriter } from './batch-writer.js';

const pending = (out: BatchWriter, aggregateId: string, aggregateType: 'project' | 'service', at: string) =>
  out.upsert({
    table: 'rm_retirements',
    row: { aggregate_id: aggregateId, aggregate_type: aggregateType, deleted_at: at },
    key: ['aggregate_id'],
    update: [],
  });

const services = eachEventOf('service', parseServiceEvent, (event, id, at, out) => {
  if (event.type === 'ServiceDeleted') pending(out, id, 'service', at);
  if (event.type === 'ServiceRetired') out.deleteOwnedBy('rm_retirements', 'aggregate_id', id);
});

const projects = eachEventOf('project', parseProjectEvent, (event, id, at, out) => {
  if (event.type === 'ProjectDeleted') pending(out, id, 'project', at);
  if (event.type === 'ProjectRetired') out.deleteOwnedBy('rm_retirements', 'aggregate_id', id);
});

/** Deleted projects and services whose retirement (release, shred, detach) has not been recorded yet. */
export const retirementsProjector: Projector = {
  name: 'retirements',
  version: 1,
  tables: ['rm_retirements'],
  ddl: `
create table if not exists rm_retirements (
  aggregate_id text primary key,
  aggregate_type text not null,
  deleted_at timestamptz not null
);`,
  applyBatch(events, out) {
    services(events, out);
    projects(events, out);
  },
};
