import { parseAutoDeployEvent } from '../../../commands/auto-deploy/events.js';
import { parseBackupEvent } from '../../../commands/backup/events.js';
import { parseClusterEvent } from '../../../commands/cluster/events.js';
import { parseDeploymentEvent } from '../../../commands/deployment/events.js';
import { parseJobRunEvent } from '../../../commands/job-run/events.js';
import type { NotificationEventName } from '../../../commands/notification-channel/events.js';
import { parseServiceEvent } from '../../../commands/service/events.js';
import type { DomainRow } from '../../../projections/service-queries.js';
import type { RecordedEvent } from '../../eventstore/port.js';

/**
 * What a notification is about, read from the event that causes it; the read models fill in the names. Causes
 * with the same `key` are told once (the notification's id derives from it); without one, each event is told.
 */
export type NotificationCause = { event: NotificationEventName; reason?: string; key?: string } & (
  | { deploymentId: string }
  | { serviceId: string; deploymentId?: string }
  | { backupId: string }
  | { nodeId: string }
  | { jobRunId: string }
);

/** Refused deliveries to one service's hook are told at most once per this window: a flood is one message. */
export const REJECTED_WEBHOOK_WINDOW_MS = 10 * 60_000;

const idOf = (recorded: RecordedEvent) => recorded.streamId.slice(recorded.streamId.indexOf('-') + 1);

/** The notification an event of the log causes, or null. Pure. */
export function causeOf(recorded: RecordedEvent): NotificationCause | null {
  const deployment = parseDeploymentEvent(recorded);
  if (deployment) {
    const deploymentId = idOf(recorded);
    switch (deployment.type) {
      case 'DeploymentFailed':
        return { event: 'deployment.failed', deploymentId, reason: deployment.data.reason };
      case 'DeploymentSucceeded':
        return { event: 'deployment.succeeded', deploymentId };
      case 'DeploymentRolledBack':
        return { event: 'deployment.rolled_back', deploymentId, reason: deployment.data.reason };
      default:
        return null;
    }
  }
  const service = parseServiceEvent(recorded);
  if (service) {
    const serviceId = idOf(recorded);
    switch (service.type) {
      case 'ServiceBecameUnhealthy':
        return { event: 'service.unhealthy', serviceId, deploymentId: service.data.deploymentId, reason: service.data.detail };
      case 'ServiceRecovered':
        return { event: 'service.recovered', serviceId, deploymentId: service.data.deploymentId, reason: service.data.detail };
      case 'DomainCertificateChanged':
        return service.data.status === 'failed'
          ? { event: 'certificate.failed', serviceId, reason: `${service.data.hostname}: ${service.data.reason ?? 'the certificate could not be obtained'}` }
          : null;
      default:
        return null;
    }
  }
  const hook = parseAutoDeployEvent(recorded);
  if (hook?.type === 'WebhookDeliveryRecorded' && hook.data.verdict.startsWith('rejected:')) {
    // Someone without the secret knocking at the service's hook: the team hears of it (the delivery's own claims are not trusted).
    const { serviceId, provider, verdict } = hook.data;
    const window = Math.floor(Date.parse(recorded.recordedAt) / REJECTED_WEBHOOK_WINDOW_MS);
    return {
      event: 'webhook.rejected',
      serviceId,
      key: `webhook-rejected|${serviceId}|${window}`,
      reason: `a ${provider} delivery was refused (${verdict.slice('rejected:'.length)}); others refused in the next 10 minutes are listed in the service's webhook deliveries, not told again`,
    };
  }
  const cluster = parseClusterEvent(recorded);
  if (cluster?.type === 'ClusterNodeWentDown') {
    const { nodeId, hostname, address, state } = cluster.data;
    return { event: 'node.down', nodeId, reason: `node ${hostname} (${address}) is ${state}: Swarm moves its tasks to the other nodes` };
  }
  const backup = parseBackupEvent(recorded);
  if (backup?.type === 'BackupFailed') return { event: 'backup.failed', backupId: idOf(recorded), reason: backup.data.error };
  if (backup?.type === 'BackupSucceeded') return { event: 'backup.succeeded', backupId: idOf(recorded) };
  // Only a scheduled job's run is told of (payloadOf leaves a one-off command out: the person who ran it is watching).
  const run = parseJobRunEvent(recorded);
  if (run?.type === 'JobRunFinished' && (run.data.status === 'failed' || run.data.status === 'timed_out')) {
    return { event: 'job.failed', jobRunId: idOf(recorded), ...(run.data.reason ? { reason: run.data.reason } : {}) };
  }
  return null;
}

/** A certificate is told of as expiring this long before it does (renewal should have replaced it by then). */
export const EXPIRING_WITHIN_MS = 14 * 24 * 60 * 60_000;

/** `certificate.expiring` for a domain whose active certificate ends within 14 days, else null. Pure. */
export function expiringCertificateCause(domain: Pick<DomainRow, 'service_id' | 'hostname' | 'certificate_status' | 'certificate_not_after'>, now: Date): NotificationCause | null {
  if (domain.certificate_status !== 'active' || domain.certificate_not_after === null) return null;
  const notAfter = new Date(domain.certificate_not_after);
  if (notAfter.getTime() - now.getTime() > EXPIRING_WITHIN_MS) return null;
  return { event: 'certificate.expiring', serviceId: domain.service_id, reason: `${domain.hostname}: the certificate expires at ${notAfter.toISOString()}` };
}
