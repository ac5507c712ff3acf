import { parseAutoDeployEvent } from '../commands/auto-deploy/events.js';
import { parseServiceEvent } from '../commands/service/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

const PREFIX = 'autodeploy-';
/** How many deliveries `GET …/auto-deploy/deliveries` lists. */
export const DELIVERIES_KEPT = 100;

/** The stream's own revision orders a service's deliveries the same way live and in a rebuild. */
function applyAutoDeployEvent(recorded: RecordedEvent, out: BatchWriter) {
  if (!recorded.streamId.startsWith(PREFIX)) return;
  const event = parseAutoDeployEvent(recorded);
  if (!event) return;
  const at = recorded.recordedAt;
  switch (event.type) {
    case 'AutoDeployConfigured': {
      const d = event.data;
      out.upsert({
        table: 'rm_auto_deploy',
        row: {
          service_id: d.serviceId,
          project_id: d.projectId,
          enabled: d.enabled,
          provider: d.provider,
          branch: d.branch,
          tag_pattern: d.tagPattern,
          watch_paths: d.watchPaths,
          ignore_paths: d.ignorePaths,
          skip_keywords: d.skipKeywords,
          updated_at: at,
        },
        key: ['service_id'],
        update: ['enabled', 'provider', 'branch', 'tag_pattern', 'watch_paths', 'ignore_paths', 'skip_keywords', 'updated_at'],
      });
      return;
    }
    case 'WebhookDeliveryRecorded': {
      const d = event.data;
      out.upsert({
        table: 'rm_webhook_deliveries',
        row: {
          service_id: d.serviceId,
          revision: recorded.revision,
          provider: d.provider,
          event: d.event,
          delivery_id: d.deliveryId,
          commit_sha: d.commitSha,
          verdict: d.verdict,
          deployment_id: d.deploymentId,
          at: d.at,
        },
        key: ['service_id', 'revision'],
        update: [],
      });
      out.sql(
        sql`delete from rm_webhook_deliveries where service_id = ${d.serviceId} and revision < (select min(revision) from
          (select revision from rm_webhook_deliveries where service_id = ${d.serviceId} order by revision desc limit ${DELIVERIES_KEPT}) kept)`,
      );
      return;
    }
    // The secret stays sealed in the log: the read side knows nothing of it.
    case 'AutoDeploySecretRotated':
      return;
  }
}

const serviceDeletions = eachEventOf('service', parseServiceEvent, (event, serviceId, _at, out) => {
  if (event.type !== 'ServiceDeleted') return;
  out.deleteOwnedBy('rm_auto_deploy', 'service_id', serviceId);
  out.deleteOwnedBy('rm_webhook_deliveries', 'service_id', serviceId);
});

/** Auto-deploy settings and the last deliveries of each service's hook route. */
export const autoDeployProjector: Projector = {
  name: 'auto-deploy',
  version: 1,
  tables: ['rm_auto_deploy', 'rm_webhook_deliveries'],
  ddl: `
create table if not exists rm_auto_deploy (
  service_id text primary key,
  project_id text not null,
  enabled boolean not null,
  provider text not null,
  branch text,
  tag_pattern text,
  watch_paths jsonb not null,
  ignore_paths jsonb not null,
  skip_keywords jsonb not null,
  updated_at timestamptz not null
);
create table if not exists rm_webhook_deliveries (
  service_id text not null,
  revision integer not null,
  provider text not null,
  event text,
  delivery_id text,
  commit_sha text,
  verdict text not null,
  deployment_id text,
  at timestamptz not null,
  primary key (service_id, revision)
);`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    for (const event of events) {
      applyAutoDeployEvent(event, out);
      serviceDeletions([event], out);
    }
  },
};
