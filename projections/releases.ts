import { parseReleaseEvent } from '../commands/release/events.js';
import { parseServiceEvent } from '../commands/service/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

const releaseEvents = eachEventOf('release', parseReleaseEvent, (event, serviceId, at, out) => {
  switch (event.type) {
    case 'ReleaseRecorded': {
      const r = event.data;
      out.upsert({
        table: 'rm_releases',
        row: {
          id: r.releaseId,
          service_id: serviceId,
          version: r.version,
          deployment_id: r.deploymentId,
          image_id: r.imageId,
          image_ref: r.imageRef,
          commit_sha: r.commitSha,
          commit_message: r.commitMessage,
          available: true,
          created_at: at,
        },
        key: ['id'],
        update: [],
      });
      return;
    }
    case 'ReleaseImagePruned':
      out.sql(sql`update rm_releases set available = false where id = ${event.data.releaseId}`);
      return;
  }
});

// A deleted service's releases leave the read side with it (its images are removed, its data key shredded).
const serviceDeletions = eachEventOf('service', parseServiceEvent, (event, serviceId, _at, out) => {
  if (event.type === 'ServiceDeleted') out.deleteOwnedBy('rm_releases', 'service_id', serviceId);
});

/** Releases without their configuration snapshot: that stays sealed in the log, read by the deployer alone. */
export const releasesProjector: Projector = {
  name: 'releases',
  version: 1,
  tables: ['rm_releases'],
  ddl: `
create table if not exists rm_releases (
  id text primary key,
  service_id text not null,
  version integer not null,
  deployment_id text not null,
  image_id text not null,
  image_ref text not null,
  commit_sha text,
  commit_message text,
  available boolean not null,
  created_at timestamptz not null
);`,
  indexes: `
create index if not exists rm_releases_service on rm_releases (service_id, version desc);`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    releaseEvents(events, out);
    serviceDeletions(events, out);
  },
};
