import type { ReleaseRow } from '../../projections/release-queries.js';
import type { release } from './contract/releases.js';
import { releasePolicyOf } from '../../commands/service/fields.js';
import type { z } from 'zod';
import type { project, service } from './contract/projects.js';
import type { domain } from './contract/domains.js';
import type { deployment, logLine } from './contract/deployments.js';
import type { auditEvent } from './contract/audit.js';
import type { change } from './contract/changes.js';
import type { parkedEvent, skippedEvent } from './contract/health.js';
import type { apiKey } from './contract/api-keys.js';
import type { ApiKeyRow } from '../../projections/api-key-queries.js';
import type { AuditRow } from '../../projections/audit-queries.js';
import type { ChangeRow } from '../../projections/change-queries.js';
import { auditData } from '../../projections/audit-redaction.js';
import type { ParkedRow, SkippedRow } from '../catch-up/parking.js';
import type { ProjectRow } from '../../projections/project-queries.js';
import type { DeploymentLogRow, DeploymentRow } from '../../projections/deployment-queries.js';
import type { DeploymentActor } from '../../projections/deployment-actor-queries.js';
import type { DomainRow, ServiceRow } from '../../projections/service-queries.js';
import { ENGINE_CATALOGUE } from '../../commands/service/engines.js';
import type { Engine } from '../../commands/service/fields.js';
import { effectiveHealthCheck, fromHealthCheckColumn } from '../../commands/service/health-check.js';
import { publicUrl, type PublicAddress } from '../proxy/public-url.js';

export const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());
const isoRequired = (value: Date | string) => new Date(value).toISOString();

function localUrl(row: ServiceRow): string {
  if (row.runtime_mode === 'worker') return '';
  if (row.kind === 'database' && row.database_engine) {
    return `${ENGINE_CATALOGUE[row.database_engine as Engine].scheme}://localhost:${row.host_port}`;
  }
  return `http://localhost:${row.host_port}`;
}

/** A service with no check shows `none` until its container goes down; one not running at all shows `none`. */
function presentHealth(row: ServiceRow, checked: boolean): z.infer<typeof service>['health'] {
  if (row.current_container === null) return { status: 'none', checkedAt: null, detail: null };
  const status = row.health_status === 'healthy' && !checked ? 'none' : row.health_status;
  return { status, checkedAt: iso(row.health_checked_at), detail: row.health_detail };
}

export function presentService(row: ServiceRow, address: PublicAddress): z.infer<typeof service> {
  const local = localUrl(row);
  const { check, isDefault } = effectiveHealthCheck({ kind: row.kind, runtimeMode: row.runtime_mode, healthCheck: fromHealthCheckColumn(row.health_check) });
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    slug: row.slug,
    repoFullName: row.repo_full_name,
    repoUrl: row.repo_url,
    dockerImage: row.docker_image,
    branch: row.branch,
    rootDir: row.root_dir,
    hasGitToken: row.has_git_token,
    installCommand: row.install_command,
    buildCommand: row.build_command,
    startCommand: row.start_command,
    staticOutput: null,
    buildMethod: row.build_method as z.infer<typeof service>['buildMethod'],
    dockerfilePath: row.dockerfile_path,
    detectedBuildMethod: row.detected_build_method,
    runtimeMode: row.runtime_mode as z.infer<typeof service>['runtimeMode'],
    internalPort: row.internal_port,
    hostPort: row.host_port,
    databasePublicEnabled: row.database_public_enabled,
    databasePublicHostname: row.database_public_hostname,
    postgresLogicalReplicationEnabled: row.postgres_logical_replication_enabled,
    status: row.status as z.infer<typeof service>['status'],
    ...releasePolicyOf({ releasesKept: row.releases_kept ?? undefined, watchSeconds: row.watch_seconds ?? undefined, autoRollback: row.auto_rollback ?? undefined }),
    releaseCommand: row.release_command ?? null,
    releaseCommandOnRollback: row.release_command_on_rollback ?? false,
    replicas: row.replicas ?? 1,
    nodeLabels: row.node_labels ?? {},
    nodeId: row.node_id,
    reachable: row.reachable,
    localUrl: local,
    primaryUrl: row.primary_hostname ? publicUrl(row.primary_hostname, address) : local,
    preferredDomain: row.primary_hostname,
    framework: null,
    lastDeployedAt: iso(row.last_deployed_at),
    createdAt: isoRequired(row.created_at),
    updatedAt: isoRequired(row.updated_at),
    resources: row.resources ?? {},
    healthCheck: check,
    healthCheckDefault: isDefault,
    health: presentHealth(row, check !== null),
    restarts: row.restarts,
  };
}

export function presentProject(row: ProjectRow, services: readonly ServiceRow[], address: PublicAddress, includeServices = true): z.infer<typeof project> {
  const lastUpdated = services.reduce((max, s) => Math.max(max, new Date(s.updated_at).getTime()), new Date(row.updated_at).getTime());
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    status: services.some((s) => s.status === 'active') ? 'active' : 'idle',
    serviceCount: services.length,
    lastUpdatedAt: new Date(lastUpdated).toISOString(),
    services: includeServices ? services.map((s) => presentService(s, address)) : [],
  };
}

/**
 * `certificate.status`: `disabled` when the installation serves HTTP only; else what Caddy reported, and
 * `pending` until it has reported anything for this hostname.
 */
export function presentDomain(row: DomainRow, httpsEnabled: boolean): z.infer<typeof domain> {
  return {
    id: row.id,
    serviceId: row.service_id,
    hostname: row.hostname,
    status: row.status,
    createdAt: isoRequired(row.created_at),
    updatedAt: isoRequired(row.updated_at),
    certificate: httpsEnabled
      ? {
          status: row.certificate_status ?? 'pending',
          reason: row.certificate_reason,
          expiresAt: iso(row.certificate_not_after),
          issuer: row.certificate_issuer,
        }
      : { status: 'disabled', reason: null, expiresAt: null, issuer: null },
    dns: row.dns_provider_id
      ? { providerId: row.dns_provider_id, recordType: row.dns_record_type, targetIp: row.dns_target_ip, zone: row.dns_zone, appliedAt: iso(row.dns_applied_at) }
      : null,
  };
}

export function presentApiKey(row: ApiKeyRow): z.infer<typeof apiKey> {
  return {
    id: row.id,
    name: row.name,
    access: row.access,
    projectIds: row.project_ids,
    prefix: row.prefix,
    ownerUserId: row.owner_user_id,
    createdAt: isoRequired(row.created_at),
    revokedAt: iso(row.revoked_at),
  };
}

export function presentChange(row: ChangeRow): z.infer<typeof change> {
  return {
    position: row.position,
    type: row.type,
    streamId: row.stream_id,
    projectId: row.project_id,
    serviceId: row.service_id,
    deploymentId: row.deployment_id,
    actor: row.actor,
    recordedAt: isoRequired(row.recorded_at),
  };
}

export function presentAuditEvent(row: AuditRow): z.infer<typeof auditEvent> {
  return {
    position: row.position,
    id: row.event_id,
    streamId: row.stream_id,
    revision: row.revision,
    type: row.type,
    schemaVersion: row.schema_version,
    recordedAt: isoRequired(row.recorded_at),
    actor: row.actor,
    actorName: row.actor_name,
    correlationId: row.correlation_id,
    causationId: row.causation_id,
    data: row.data,
  };
}

export function presentDeployment(row: DeploymentRow, by: DeploymentActor | undefined): z.infer<typeof deployment> {
  return {
    id: row.id,
    serviceId: row.service_id,
    commitSha: row.commit_sha,
    commitMessage: row.commit_message,
    status: row.status,
    trigger: row.trigger,
    kind: row.kind,
    rollbackOf: row.release_id,
    imageTag: row.image_tag,
    containerName: row.container_name,
    buildMethod: row.build_method,
    /** Why it failed or was aborted; null otherwise. */
    reason: row.reason,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    createdAt: isoRequired(row.created_at),
    actor: by?.actor ?? null,
    actorName: by?.name ?? null,
  };
}

/** A deployment as it was queued, even if the deployer has already taken it in the meantime. */
export const presentQueuedDeployment = (row: DeploymentRow, by: DeploymentActor | undefined): z.infer<typeof deployment> => ({
  ...presentDeployment(row, by),
  status: 'queued',
  commitSha: null,
  commitMessage: null,
  imageTag: null,
  containerName: null,
  startedAt: null,
  finishedAt: null,
});

export function presentDeploymentLog(row: DeploymentLogRow): z.infer<typeof logLine> {
  return { id: row.id, deploymentId: row.deployment_id, line: row.line, stream: row.stream, createdAt: isoRequired(row.created_at) };
}

/** What a parked and a skipped event both say of the event and the read model it failed in. */
const failedEvent = (row: Pick<ParkedRow, 'projector' | 'event_id' | 'position' | 'stream_id' | 'type' | 'error'>) => ({
  projector: row.projector,
  eventId: row.event_id,
  position: row.position,
  streamId: row.stream_id,
  type: row.type,
  error: row.error,
});

export function presentSkipped(row: SkippedRow): z.infer<typeof skippedEvent> {
  return { ...failedEvent(row), skippedBy: row.skipped_by, reason: row.reason, skippedAt: isoRequired(row.skipped_at) };
}

export function presentParked(row: ParkedRow): z.infer<typeof parkedEvent> {
  return {
    ...failedEvent(row),
    schemaVersion: row.schema_version,
    recordedAt: isoRequired(row.recorded_at),
    attempts: row.attempts,
    parkedAt: isoRequired(row.parked_at),
    data: auditData(row.type, row.data),
  };
}

export function presentRelease(row: ReleaseRow, by: DeploymentActor | undefined, changes: z.infer<typeof release>['changes']): z.infer<typeof release> {
  return {
    id: row.id,
    version: row.version,
    deploymentId: row.deployment_id,
    imageId: row.image_id,
    commitSha: row.commit_sha,
    commitMessage: row.commit_message,
    createdAt: isoRequired(row.created_at),
    current: row.current,
    available: row.available,
    actor: by?.actor ?? null,
    actorName: by?.name ?? null,
    changes,
  };
}
