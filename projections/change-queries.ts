import type { SqlExecutor, SqlValue } from '../src/db/sql-client.js';

/** One event as the dashboard's change feed tells of it: what changed, never the event's data. */
export interface ChangeRow {
  position: string;
  stream_id: string;
  type: string;
  project_id: string | null;
  previous_project_id: string | null;
  service_id: string | null;
  deployment_id: string | null;
  actor: string;
  recorded_at: Date | string;
}

// Streams whose aggregate id is the service's own.
const SERVICE_STREAMS = ['service', 'database', 'backupsettings', 'autodeploy', 'release'];
// Streams whose service is found in their read model (their later events do not repeat it).
const OWNED_BY_SERVICE = { deployment: 'rm_deployments', backup: 'rm_backups', import: 'rm_imports', job: 'rm_jobs', jobrun: 'rm_job_runs' } as const;

const categoryOf = `split_part(a.stream_id, '-', 1)`;
const aggregateOf = `substr(a.stream_id, strpos(a.stream_id, '-') + 1)`;
const ownerJoins = Object.entries(OWNED_BY_SERVICE)
  .map(([category, table]) => `left join ${table} ${category} on ${categoryOf} = '${category}' and ${category}.id = ${aggregateOf}`)
  .join('\n');

export interface ChangeFilter {
  /** Exclusive; null: from the start of the log. */
  after: string | null;
  /** Inclusive. */
  upTo?: string;
  limit: number;
}

/**
 * The changes after `after` in log order, from the audit log (which knows each event's project), with the
 * service and deployment they concern. Log lines (a deployment's, a run's) are left out: they have streams of their own.
 */
export async function listChanges(db: SqlExecutor, filter: ChangeFilter): Promise<ChangeRow[]> {
  const params: SqlValue[] = [filter.after ?? ''];
  const bind = (value: SqlValue) => `$${params.push(value)}`;
  const upTo = filter.upTo === undefined ? '' : `and a.position <= ${bind(filter.upTo)}`;
  const { rows } = await db.query<ChangeRow>(
    `select a.position, a.stream_id, a.type, a.project_id, a.previous_project_id, a.actor, a.recorded_at,
       coalesce(a.data->>'serviceId',
                case when ${categoryOf} in (${SERVICE_STREAMS.map((s) => `'${s}'`).join(', ')}) then ${aggregateOf} end,
                deployment.service_id, backup.service_id, import.service_id, job.service_id, jobrun.service_id) as service_id,
       case when ${categoryOf} = 'deployment' then ${aggregateOf} else a.data->>'deploymentId' end as deployment_id
     from rm_audit_log a
     ${ownerJoins}
     where a.position > $1 ${upTo} and ${categoryOf} not in ('deploymentlog', 'jobrunlog')
     order by a.position
     limit ${bind(filter.limit)}`,
    params,
  );
  return rows;
}

/** The newest position of the audit log: where a feed that starts now begins. */
export async function lastChangePosition(db: SqlExecutor): Promise<string | null> {
  const { rows } = await db.query<{ position: string | null }>('select max(position) as position from rm_audit_log');
  return rows[0]?.position ?? null;
}
