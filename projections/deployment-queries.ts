import type { DeploymentKind, DeploymentTrigger } from '../commands/deployment/events.js';
import type { SqlExecutor } from '../src/db/sql-client.js';

export interface DeploymentRow {
  id: string;
  service_id: string;
  project_id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'aborted' | 'canceled' | 'rolled_back';
  trigger: DeploymentTrigger;
  kind: DeploymentKind;
  /** The release a release-based deployment runs (a rollback's `rollbackOf`). */
  release_id: string | null;
  commit_sha: string | null;
  /** The commit's subject line, once the source was fetched. */
  commit_message: string | null;
  image_tag: string | null;
  container_name: string | null;
  build_method: 'dockerfile' | 'packbuilder' | 'image' | null;
  reason: string | null;
  abort_requested: boolean;
  started_at: Date | string | null;
  finished_at: Date | string | null;
  created_at: Date | string;
}

export interface DeploymentLogRow {
  deployment_id: string;
  id: number;
  line: string;
  stream: 'stdout' | 'stderr' | 'system';
  created_at: Date | string;
}

export async function findDeployment(db: SqlExecutor, id: string): Promise<DeploymentRow | null> {
  const { rows } = await db.query<DeploymentRow>('select * from rm_deployments where id = $1', [id]);
  return rows[0] ?? null;
}

/** Newest first. */
export async function listDeploymentsOf(db: SqlExecutor, serviceId: string, limit = 100): Promise<DeploymentRow[]> {
  const { rows } = await db.query<DeploymentRow>(
    'select * from rm_deployments where service_id = $1 order by created_at desc, id desc limit $2',
    [serviceId, limit],
  );
  return rows;
}

/** Whether this installation ever queued a deployment (deleted services included). */
export async function everDeployed(db: SqlExecutor): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(
    "select exists (select 1 from rm_deployments) or exists (select 1 from rm_audit_log where type = 'DeploymentQueued') as found",
  );
  return rows[0]?.found === true;
}

/** Queued and running deployments, oldest first. */
export async function listUnfinishedDeployments(db: SqlExecutor): Promise<DeploymentRow[]> {
  const { rows } = await db.query<DeploymentRow>(
    "select * from rm_deployments where status in ('queued', 'running') order by created_at, id",
  );
  return rows;
}

/** The ids of one service's queued and running deployments. */
export async function unfinishedDeploymentIdsOf(db: SqlExecutor, serviceId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>("select id from rm_deployments where service_id = $1 and status in ('queued', 'running')", [serviceId]);
  return rows.map((r) => r.id);
}

export async function listDeploymentLogs(db: SqlExecutor, deploymentId: string, afterId = 0): Promise<DeploymentLogRow[]> {
  const { rows } = await db.query<DeploymentLogRow>(
    'select * from rm_deployment_logs where deployment_id = $1 and id > $2 order by id',
    [deploymentId, afterId],
  );
  return rows;
}

/** The last `count` lines of a deployment's log, oldest first. */
export async function lastDeploymentLogs(db: SqlExecutor, deploymentId: string, count: number): Promise<DeploymentLogRow[]> {
  const { rows } = await db.query<DeploymentLogRow>(
    'select * from (select * from rm_deployment_logs where deployment_id = $1 order by id desc limit $2) last order by id',
    [deploymentId, count],
  );
  return rows;
}
