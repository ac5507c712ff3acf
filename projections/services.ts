import { parseDeploymentEvent } from '../commands/deployment/events.js';
import { parseServiceEvent } from '../commands/service/events.js';
import { healthCheckColumn } from '../commands/service/health-check.js';
import { eachEventOf, type Projector } from './projector.js';
import { literal, sql, type Literal } from './sql-text.js';
import { snakeCase } from './stream-id.js';

export const servicesProjector: Projector = {
  name: 'services',
  version: 6,
  tables: ['rm_services'],
  ddl: `
create table if not exists rm_services (
  id text primary key,
  project_id text not null,
  name text not null,
  slug text not null,
  kind text not null,
  repo_full_name text,
  repo_url text not null,
  docker_image text,
  branch text not null,
  root_dir text,
  has_git_token boolean not null,
  install_command text,
  build_command text,
  start_command text,
  build_method text not null,
  dockerfile_path text,
  detected_build_method text,
  runtime_mode text not null,
  internal_port integer not null,
  host_port integer not null,
  database_engine text,
  database_public_enabled boolean not null,
  database_public_hostname text,
  postgres_logical_replication_enabled boolean not null,
  status text not null,
  reachable boolean not null,
  last_deployed_at timestamptz,
  current_deployment_id text,
  current_container text,
  upstream_port integer,
  releases_kept integer,
  watch_seconds integer,
  auto_rollback boolean,
  release_command jsonb,
  release_command_on_rollback boolean,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  resources jsonb,
  last_deployment_id text,
  health_check text,
  health_status text not null default 'none',
  health_detail text,
  health_checked_at timestamptz,
  restarts integer not null default 0,
  replicas integer,
  node_labels jsonb,
  node_id text
);`,
  indexes: `
create index if not exists rm_services_project on rm_services (project_id, created_at);`,
  applyBatch(events, out) {
    // In log order: a failure must see the release (or its undoing) recorded before it.
    for (const event of events) {
      applyServiceEvents([event], out);
      applyDeploymentEvents([event], out);
    }
  },
};

/**
 * `status`: idle (nothing runs), active (a release runs), stopped (on request), failed (the last deployment
 * failed and nothing runs), crashed (the running release's container died).
 */
const applyDeploymentEvents = eachEventOf('deployment', parseDeploymentEvent, (event, id, _at, out) => {
  if (event.type === 'DeploymentQueued') {
    out.sql(sql`update rm_services set last_deployment_id = ${id} where id = ${event.data.serviceId}`);
  } else if (event.type === 'DeploymentFailed') {
    out.sql(sql`update rm_services set status = 'failed' where last_deployment_id = ${id} and current_deployment_id is null`);
  }
});

const applyServiceEvents = eachEventOf('service', parseServiceEvent, (event, id, at, out) => {
  switch (event.type) {
    case 'ServiceCreated': {
      const { gitToken, healthCheck, ...fields } = event.data;
      const row: Record<string, Literal> = { id, has_git_token: gitToken !== null, status: 'idle', reachable: false };
      for (const [key, value] of Object.entries(fields)) row[snakeCase(key)] = value;
      row.health_check = healthCheckColumn(healthCheck);
      row.created_at = at;
      row.updated_at = at;
      out.upsert({ table: 'rm_services', row, key: ['id'], update: Object.keys(row).filter((c) => c !== 'id') });
      return;
    }
    case 'ServiceUpdated': {
      const { gitToken, healthCheck, releaseCommand, ...changes } = event.data.changes;
      const sets = Object.entries(changes).map(([key, value]) => `${snakeCase(key)} = ${literal(value)}`);
      // A string is a JSON string in the jsonb column, as at creation (where values travel as JSON).
      if (releaseCommand !== undefined) sets.push(`release_command = ${releaseCommand === null ? 'null' : `${literal(JSON.stringify(releaseCommand))}::jsonb`}`);
      if (healthCheck !== undefined) sets.push(`health_check = ${literal(healthCheckColumn(healthCheck))}`);
      if (gitToken !== undefined) sets.push(`has_git_token = ${literal(gitToken !== null)}`);
      // An image service is listed by its image (`image:<reference>`, as at its creation).
      if (changes.dockerImage) sets.push(`repo_full_name = ${literal(`image:${changes.dockerImage}`)}`);
      out.sql(`update rm_services set ${[...sets, sql`updated_at = ${at}`].join(', ')} where id = ${literal(id)}`);
      return;
    }
    case 'ServiceTransferred':
      out.sql(sql`update rm_services set project_id = ${event.data.toProjectId}, updated_at = ${at} where id = ${id}`);
      return;
    case 'ServiceDeleted':
      out.deleteOwnedBy('rm_services', 'id', id);
      return;
    case 'ServiceMoved':
      out.sql(sql`update rm_services set node_id = ${event.data.nodeId}, updated_at = ${at} where id = ${id}`);
      return;
    case 'ServiceReleased': {
      const r = event.data;
      if (r.deploymentId === null) {
        out.sql(sql`update rm_services set current_deployment_id = null, current_container = null, upstream_port = null,
          reachable = false, status = 'idle', health_status = 'none', health_detail = null, health_checked_at = null, restarts = 0,
          updated_at = ${at} where id = ${id}`);
        return;
      }
      // A new release starts healthy (its gate passed) with no restarts; the same release again keeps what it had.
      const fresh = sql`current_deployment_id is distinct from ${r.deploymentId}`;
      out.sql(
        `update rm_services set
        health_status = case when ${fresh} then 'healthy' else health_status end,
        health_detail = case when ${fresh} then null else health_detail end,
        health_checked_at = case when ${fresh} then ${literal(at)}::timestamptz else health_checked_at end,
        restarts = case when ${fresh} then 0 else restarts end, ` +
          sql`
        current_deployment_id = ${r.deploymentId}, current_container = ${r.containerName},
        upstream_port = ${r.upstreamPort}, reachable = ${r.upstreamPort !== null}, status = 'active',
        detected_build_method = ${r.buildMethod}, last_deployed_at = ${at}, updated_at = ${at} where id = ${id}`,
      );
      return;
    }
    // A service stopped on request is not crashed: the monitor's reports leave its status alone.
    case 'ServiceBecameUnhealthy': {
      const h = event.data;
      out.sql(sql`update rm_services set health_status = 'unhealthy', health_detail = ${h.detail}, health_checked_at = ${at},
        restarts = ${h.restarts}, status = case when status = 'stopped' then status when ${h.crashed} then 'crashed' else 'active' end
        where id = ${id} and current_deployment_id = ${h.deploymentId}`);
      return;
    }
    case 'ServiceRecovered': {
      const h = event.data;
      out.sql(sql`update rm_services set health_status = 'healthy', health_detail = null, health_checked_at = ${at},
        restarts = ${h.restarts}, status = case when status = 'stopped' then status else 'active' end
        where id = ${id} and current_deployment_id = ${h.deploymentId}`);
      return;
    }
    case 'ServiceStopped':
      out.sql(sql`update rm_services set status = 'stopped', reachable = false, updated_at = ${at} where id = ${id}`);
      return;
  }
});
