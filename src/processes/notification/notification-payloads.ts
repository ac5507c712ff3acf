import type { NotificationPayload } from '../../../commands/notification/events.js';
import { findBackup } from '../../../projections/backup-queries.js';
import { findDeployment } from '../../../projections/deployment-queries.js';
import { findJobRun } from '../../../projections/job-run-queries.js';
import { findProject } from '../../../projections/project-queries.js';
import { findService } from '../../../projections/service-queries.js';
import type { SqlExecutor } from '../../db/sql-client.js';
import type { NotificationCause } from './notification-causes.js';

export type PayloadDraft = Omit<NotificationPayload, 'id'>;

/**
 * What a receiver is told of `cause`, from the read models (they include the causing event when a process
 * manager sees it), and the project it belongs to (which channels may hear of it). Null: nobody is told (the
 * failure of a one-off command, whose runner follows it, or a run no longer known).
 */
export async function payloadOf(db: SqlExecutor, cause: NotificationCause, occurredAt: string, apiBase: string): Promise<{ projectId: string | null; draft: PayloadDraft } | null> {
  let serviceId: string | null = null;
  const run = 'jobRunId' in cause ? await findJobRun(db, cause.jobRunId) : null;
  if ('jobRunId' in cause) {
    if (!run || run.job_id === null) return null;
    serviceId = run.service_id;
  }
  let deploymentId: string | null = 'deploymentId' in cause ? (cause.deploymentId ?? null) : null;
  if ('serviceId' in cause) serviceId = cause.serviceId;
  if ('backupId' in cause) serviceId = (await findBackup(db, cause.backupId))?.service_id ?? null;
  const deployment = deploymentId ? await findDeployment(db, deploymentId) : null;
  if (!deployment) deploymentId = null;
  serviceId ??= deployment?.service_id ?? null;
  const service = serviceId ? await findService(db, serviceId) : null;
  const projectId = service?.project_id ?? deployment?.project_id ?? null;
  const project = projectId ? await findProject(db, { id: projectId }) : null;

  // A person follows `links` to the dashboard's page of the thing (signing in first if need be); a program
  // follows `apiLinks`.
  const links: Record<string, string> = {};
  const apiLinks: Record<string, string> = {};
  if (service) {
    links.service = `${apiBase}/services/${service.id}`;
    apiLinks.service = `${apiBase}/api/services/${service.id}`;
  }
  let explanationUrl: string | undefined;
  if (deployment) {
    links.deployment = `${apiBase}/deployments/${deployment.id}`;
    apiLinks.deployment = `${apiBase}/api/deployments/${deployment.id}`;
    apiLinks.deployments = `${apiBase}/api/services/${deployment.service_id}/deployments`;
    apiLinks.log = `${apiBase}/api/deployments/${deployment.id}/logs`;
    if (cause.event === 'deployment.failed') {
      explanationUrl = `${apiBase}/api/deployments/${deployment.id}/explain-failure`;
      apiLinks.explanation = explanationUrl;
    }
  }
  // A node belongs to no project: only channels of every project hear of it.
  if ('nodeId' in cause) {
    links.nodes = `${apiBase}/installation`;
    apiLinks.nodes = `${apiBase}/api/cluster/nodes`;
  }
  if (run) {
    links.service = `${apiBase}/services/${run.service_id}`;
    apiLinks.run = `${apiBase}/api/job-runs/${run.id}`;
    apiLinks.log = `${apiBase}/api/job-runs/${run.id}/logs`;
  }
  if ('backupId' in cause && service) apiLinks.backups = `${apiBase}/api/services/${service.id}/database/backups`;

  const draft: PayloadDraft = {
    event: cause.event,
    occurredAt,
    project: project ? { id: project.id, name: project.name } : null,
    service: service ? { id: service.id, name: service.name } : null,
    ...(deployment ? { deployment: { id: deployment.id, commitSha: deployment.commit_sha } } : {}),
    ...(run && run.job_id !== null ? { jobRun: { id: run.id, jobId: run.job_id, jobName: run.job_name ?? '', status: run.status, exitCode: run.exit_code } } : {}),
    ...(cause.reason ? { reason: cause.reason } : {}),
    ...(explanationUrl ? { explanationUrl } : {}),
    links,
    apiLinks,
  };
  return { projectId, draft };
}
