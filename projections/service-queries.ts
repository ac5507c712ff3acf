import type { SqlExecutor } from '../src/db/sql-client.js';
import type { ResourceSettings } from '../commands/service/resources.js';

export interface ServiceRow {
  id: string;
  project_id: string;
  name: string;
  slug: string;
  kind: 'source' | 'image' | 'database';
  repo_full_name: string | null;
  repo_url: string;
  docker_image: string | null;
  branch: string;
  root_dir: string | null;
  has_git_token: boolean;
  install_command: string | null;
  build_command: string | null;
  start_command: string | null;
  build_method: string;
  dockerfile_path: string | null;
  detected_build_method: string | null;
  runtime_mode: string;
  internal_port: number;
  host_port: number;
  database_engine: string | null;
  database_public_enabled: boolean;
  database_public_hostname: string | null;
  postgres_logical_replication_enabled: boolean;
  status: string;
  reachable: boolean;
  last_deployed_at: Date | string | null;
  current_deployment_id: string | null;
  current_container: string | null;
  upstream_port: number | null;
  releases_kept: number | null;
  replicas: number | null;
  node_labels: Record<string, string> | null;
  node_id: string | null;
  watch_seconds: number | null;
  auto_rollback: boolean | null;
  /** As given: a string (run with `sh -c`) or an argv; null: none. */
  release_command: string | string[] | null;
  release_command_on_rollback: boolean | null;
  created_at: Date | string;
  updated_at: Date | string;
  /** As set; null before limits existed (see commands/service/resources.ts). */
  resources: ResourceSettings | null;
  /** The stored health check as JSON; null: the default for its kind (see healthCheckColumn). */
  health_check: string | null;
  health_status: 'healthy' | 'unhealthy' | 'none';
  health_detail: string | null;
  health_checked_at: Date | string | null;
  restarts: number;
  /** First custom domain, for primaryUrl. */
  primary_hostname: string | null;
}

const SELECT = `select s.*, (select d.hostname from rm_domains d where d.service_id = s.id order by d.created_at, d.hostname limit 1)
  as primary_hostname from rm_services s`;

export async function listServicesOf(db: SqlExecutor, projectIds: readonly string[]): Promise<ServiceRow[]> {
  if (projectIds.length === 0) return [];
  const { rows } = await db.query<ServiceRow>(`${SELECT} where s.project_id = any($1::text[]) order by s.created_at, s.id`, [
    projectIds as string[],
  ]);
  return rows;
}

export async function findService(db: SqlExecutor, id: string): Promise<ServiceRow | null> {
  const { rows } = await db.query<ServiceRow>(`${SELECT} where s.id = $1`, [id]);
  return rows[0] ?? null;
}

export async function findServiceProjectId(db: SqlExecutor, id: string): Promise<string | null> {
  const { rows } = await db.query<{ project_id: string }>('select project_id from rm_services where id = $1', [id]);
  return rows[0]?.project_id ?? null;
}

/** Services whose route leads to a container of Slipway's engine; a Swarm service's tasks (`swarm:…`) are Swarm's to keep. */
export async function listReleasedServices(db: SqlExecutor): Promise<ServiceRow[]> {
  const { rows } = await db.query<ServiceRow>(`${SELECT} where s.current_container is not null and s.current_container not like 'swarm:%' order by s.id`);
  return rows;
}

/** Services whose release runs as a Swarm service (`swarm:…`): their tasks are the cluster's. */
export async function listSwarmReleasedServices(db: SqlExecutor): Promise<ServiceRow[]> {
  const { rows } = await db.query<ServiceRow>(`${SELECT} where s.current_container like 'swarm:%' order by s.id`);
  return rows;
}

/** Every database service and the node it is on (null: the manager's engine), for the cluster's node list. */
export async function listDatabasePlacements(db: SqlExecutor): Promise<{ id: string; name: string; status: string; current_container: string | null; node_id: string | null }[]> {
  const { rows } = await db.query<{ id: string; name: string; status: string; current_container: string | null; node_id: string | null }>(
    "select id, name, status, current_container, node_id from rm_services where kind = 'database' order by name, id",
  );
  return rows;
}

export async function takenHostPorts(db: SqlExecutor): Promise<Set<number>> {
  const { rows } = await db.query<{ host_port: number }>('select host_port from rm_services');
  return new Set(rows.map((r) => r.host_port));
}

export interface EnvRow {
  id: string;
  service_id: string;
  key: string;
  /** Encrypted. */
  value: string;
  created_at: Date | string;
  updated_at: Date | string;
}

export async function listEnvOf(db: SqlExecutor, serviceIds: readonly string[]): Promise<EnvRow[]> {
  const { rows } = await db.query<EnvRow>(
    'select * from rm_env where service_id = any($1::text[]) order by created_at, key',
    [serviceIds as string[]],
  );
  return rows;
}

export interface DomainRow {
  id: string;
  service_id: string;
  hostname: string;
  status: 'active';
  created_at: Date | string;
  updated_at: Date | string;
  dns_provider_id: string | null;
  dns_record_type: 'A' | 'AAAA' | null;
  dns_target_ip: string | null;
  dns_zone: string | null;
  dns_applied_at: Date | string | null;
  /** Null until Caddy's storage or log said something of this hostname. */
  certificate_status: 'pending' | 'active' | 'failed' | null;
  certificate_reason: string | null;
  certificate_not_after: Date | string | null;
  certificate_issuer: string | null;
}

export async function findDomain(db: SqlExecutor, serviceId: string, domainId: string): Promise<DomainRow | null> {
  const { rows } = await db.query<DomainRow>('select * from rm_domains where id = $1 and service_id = $2', [domainId, serviceId]);
  return rows[0] ?? null;
}

export async function listDomainsOf(db: SqlExecutor, serviceId: string): Promise<DomainRow[]> {
  const { rows } = await db.query<DomainRow>(
    'select * from rm_domains where service_id = $1 order by created_at, hostname',
    [serviceId],
  );
  return rows;
}

/** Whether a service of the project with this slug runs a container (which the project's network knows by that name). */
export async function isRunningServiceOf(db: SqlExecutor, projectId: string, slug: string): Promise<boolean> {
  const { rows } = await db.query('select 1 from rm_services where project_id = $1 and slug = $2 and current_container is not null', [projectId, slug]);
  return rows.length > 0;
}

export async function isDomainUsed(db: SqlExecutor, hostname: string): Promise<boolean> {
  return (await db.query('select 1 from rm_domains where hostname = $1', [hostname])).rows.length > 0;
}

export async function listAllDomains(db: SqlExecutor): Promise<DomainRow[]> {
  return (await db.query<DomainRow>('select * from rm_domains order by hostname')).rows;
}
