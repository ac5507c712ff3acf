import { parseServiceEvent } from '../commands/service/events.js';
import { healthCheckColumn } from '../commands/service/health-check.js';
import { eachEventOf, type Projector } from './projector.js';
import { literal, sql, type Literal } from './sql-text.js';
import { snakeCase } from './stream-id.js';

export const servicesProjector: Projector = {
  name: 'services',
  version: 3,
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
  created_at timestamptz not null,
  updated_at timestamptz not null,
  health_check text,
  health_status text not null default 'none',
  health_detail text,
  health_checked_at timestamptz,
  restarts integer not null default 0
);`,
  indexes: `
create index if not exists rm_services_project on rm_services (project_id, created_at);`,
  applyBatch: eachEventOf('service', parseServiceEvent, (event, id, at, out) => {
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
        const { gitToken, healthCheck, ...changes } = event.data.changes;
        const sets = Object.entries(changes).map(([key, value]) => `${snakeCase(key)} = ${literal(value)}`);
        if (healthCheck !== undefined) sets.push(`health_check = ${literal(healthCheckColumn(healthCheck))}`);
        if (gitToken !== undefined) sets.push(`has_git_token = ${literal(gitToken !== null)}`);
        out.sql(`update rm_services set ${[...sets, sql`updated_at = ${at}`].join(', ')} where id = ${literal(id)}`);
        return;
      }
      case 'ServiceTransferred':
        out.sql(sql`update rm_services set project_id = ${event.data.toProjectId}, updated_at = ${at} where id = ${id}`);
        return;
      case 'ServiceDeleted':
        out.sql(sql`delete from rm_services where id = ${id}`);
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
        out.sql(sql`update rm_services set
          health_status = case when current_deployment_id is distinct from ${r.deploymentId} then 'healthy' else health_status end,
          health_detail = case when current_deployment_id is distinct from ${r.deploymentId} then null else health_detail end,
          health_checked_at = case when current_deployment_id is distinct from ${r.deploymentId} then ${at}::timestamptz else health_checked_at end,
          restarts = case when current_deployment_id is distinct from ${r.deploymentId} then 0 else restarts end,
          status = case when current_deployment_id is distinct from ${r.deploymentId} then 'active' else status end,
          current_deployment_id = ${r.deploymentId}, current_container = ${r.containerName},
          upstream_port = ${r.upstreamPort}, reachable = ${r.upstreamPort !== null},
          detected_build_method = ${r.buildMethod}, last_deployed_at = ${at}, updated_at = ${at} where id = ${id}`);
        return;
      }
      case 'ServiceBecameUnhealthy': {
        const h = event.data;
        out.sql(sql`update rm_services set health_status = 'unhealthy', health_detail = ${h.detail}, health_checked_at = ${at},
          restarts = ${h.restarts}, status = ${h.crashed ? 'crashed' : 'active'}
          where id = ${id} and current_deployment_id = ${h.deploymentId}`);
        return;
      }
      case 'ServiceRecovered': {
        const h = event.data;
        out.sql(sql`update rm_services set health_status = 'healthy', health_detail = null, health_checked_at = ${at},
          restarts = ${h.restarts}, status = 'active'
          where id = ${id} and current_deployment_id = ${h.deploymentId}`);
        return;
      }
    }
  }),
};
