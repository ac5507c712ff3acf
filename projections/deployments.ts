import { LOG_CATEGORY, parseDeploymentEvent, parseDeploymentLogEvent } from '../commands/deployment/events.js';
import { parseServiceEvent } from '../commands/service/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { upsertLogLines } from './log-lines.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

const deploymentEvents = eachEventOf('deployment', parseDeploymentEvent, (event, id, at, out) => {
  const set = (assignments: string) => out.updateById('rm_deployments', id, assignments);
  switch (event.type) {
    case 'DeploymentQueued':
      out.upsert({
        table: 'rm_deployments',
        row: {
          id,
          service_id: event.data.serviceId,
          project_id: event.data.projectId,
          status: 'queued',
          trigger: event.data.trigger,
          kind: event.data.kind,
          release_id: event.data.releaseId,
          commit_sha: event.data.commitSha,
          created_at: at,
        },
        key: ['id'],
        update: [],
      });
      return;
    case 'DeploymentStarted':
      return set(sql`status = 'running', started_at = ${at}`);
    case 'DeploymentCommitResolved':
      return set(sql`commit_sha = ${event.data.commitSha}, commit_message = ${event.data.commitMessage}`);
    case 'DeploymentImageBuilt':
      return set(sql`image_tag = ${event.data.imageTag}, build_method = ${event.data.buildMethod}`);
    case 'DeploymentContainerStarted':
      return set(sql`container_name = ${event.data.containerName}`);
    case 'DeploymentAbortRequested':
      return set('abort_requested = true');
    case 'DeploymentSucceeded':
      return set(sql`status = 'succeeded', finished_at = ${at}`);
    case 'DeploymentFailed':
      return set(sql`status = 'failed', reason = ${event.data.reason}, finished_at = ${at}`);
    case 'DeploymentAborted':
      return set(sql`status = 'aborted', reason = ${event.data.reason}, finished_at = ${at}`);
    case 'DeploymentCanceled':
      return set(sql`status = 'canceled', reason = ${event.data.reason}, finished_at = ${at}`);
    case 'DeploymentRolledBack':
      return set(sql`status = 'rolled_back', reason = ${event.data.reason}`);
    case 'DeploymentWatchFailed':
      return set(sql`reason = ${event.data.reason}`);
  }
});

const logEvents = eachEventOf(LOG_CATEGORY, parseDeploymentLogEvent, (event, deploymentId, _at, out) =>
  upsertLogLines(out, 'rm_deployment_logs', { column: 'deployment_id', id: deploymentId }, event.data),
);

// Deleting a service (or its project) removes its deployments and their logs from the read side.
const serviceDeletions = eachEventOf('service', parseServiceEvent, (event, serviceId, _at, out) => {
  if (event.type !== 'ServiceDeleted') return;
  out.sql(sql`delete from rm_deployment_logs where deployment_id in (select id from rm_deployments where service_id = ${serviceId})`);
  out.deleteOwnedBy('rm_deployments', 'service_id', serviceId);
});

export const deploymentsProjector: Projector = {
  name: 'deployments',
  version: 3,
  tables: ['rm_deployments', 'rm_deployment_logs'],
  ddl: `
create table if not exists rm_deployments (
  id text primary key,
  service_id text not null,
  project_id text not null,
  status text not null,
  trigger text not null,
  kind text not null,
  release_id text,
  commit_sha text,
  commit_message text,
  image_tag text,
  container_name text,
  build_method text,
  reason text,
  abort_requested boolean not null default false,
  started_at timestamptz,
  finished_at timestamptz,
  created_at timestamptz not null
);
create table if not exists rm_deployment_logs (
  deployment_id text not null,
  id integer not null,
  line text not null,
  stream text not null,
  created_at timestamptz not null,
  primary key (deployment_id, id)
);`,
  indexes: `
create index if not exists rm_deployments_service on rm_deployments (service_id, created_at desc);
create index if not exists rm_deployments_unfinished on rm_deployments (created_at) where status in ('queued', 'running');`,
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    // Log rows reference deployments only by id; each kind is applied in log order within its own filter.
    for (const event of events) {
      const one = [event];
      deploymentEvents(one, out);
      logEvents(one, out);
      serviceDeletions(one, out);
    }
  },
};
