import { nameOf, str, type Phrase, type Said } from './history-names.js';

const project = (s: Said, id: string) => nameOf(s.names.projects, id, 'a project');
const commit = (sha: unknown) => (str(sha) ? ` (commit ${str(sha).slice(0, 7)})` : '');
const because = (reason: unknown) => (str(reason) ? `: ${str(reason)}` : '');
const version = (s: Said, releaseId: string) => {
  const v = s.names.versions.get(releaseId);
  return v === undefined ? 'an earlier release' : `v${v}`;
};
/** `internalPort` → `internal port`. */
const words = (field: string) => field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
/** `65000` → `1 min 5 s`. */
const seconds = (ms: unknown) => {
  const s = Math.round((typeof ms === 'number' ? ms : 0) / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
};
const list = (items: readonly string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

function queued(s: Said): string {
  const { who, d, service } = s;
  switch (str(d.kind)) {
    case 'rollback':
      return `${who} rolled back ${service} to ${version(s, str(d.releaseId))}`;
    case 'config':
      return `${who} restarted ${service} with its new settings`;
    case 'start':
      return `${who} started ${service}`;
    case 'restart':
      return `${who} restarted ${service}`;
    case 'move':
      return `${who} moved ${service} to ${str(d.toNodeId) ? `node ${str(d.toNodeId)}` : 'the manager'}`;
    default:
      return `${who} deployed ${service}${commit(d.commitSha)}${d.trigger === 'webhook' ? ' after a push to its repository' : d.trigger === 'push' ? ' from a git push' : ''}`;
  }
}

function certificate({ who, d }: Said): string {
  if (d.status === 'active') return `${who} got a certificate for ${str(d.hostname)}`;
  if (d.status === 'failed') return `${who} could not get a certificate for ${str(d.hostname)}${because(d.reason)}`;
  return `${who} is getting a certificate for ${str(d.hostname)}`;
}

function webhook({ d, service }: Said): string {
  const verdict = str(d.verdict);
  const from = `A webhook from ${str(d.provider)}`;
  if (verdict === 'deployed') return `${from} deployed ${service}${commit(d.commitSha)}`;
  if (verdict === 'pong') return `${from} checked ${service}’s hook`;
  if (verdict === 'duplicate') return `${from} repeated a delivery to ${service}`;
  const [outcome, why] = verdict.split(':');
  return `${from} to ${service} was ${outcome} (${words(why ?? '')})`;
}

/** Projects, services and what happens to them: settings, variables, domains, deployments, releases, auto-deploy. */
export const SERVICE_PHRASES: Record<string, Phrase> = {
  ProjectCreated: ({ who, d }) => `${who} created the project ${str(d.name)}`,
  ProjectUpdated: ({ who, d }) => `${who} updated the name or description of the project ${str(d.name)}`,
  ProjectServiceAttached: (s) => `${s.who} added ${nameOf(s.names.services, str(s.d.serviceId), 'a service')} to ${project(s, s.id)}`,
  ProjectServiceDetached: (s) => `${s.who} took ${nameOf(s.names.services, str(s.d.serviceId), 'a service')} out of ${project(s, s.id)}`,
  ProjectDeleted: (s) => `${s.who} deleted the project ${nameOf(s.names.projects, s.id, str(s.d.slug))}`,
  ProjectRetired: (s) => `${s.who} released the name of the deleted project ${str(s.d.slug)}`,

  ServiceCreated: (s) => `${s.who} created the service ${str(s.d.name)} in ${project(s, str(s.d.projectId))}`,
  ServiceUpdated: ({ who, d, service }) => `${who} changed ${list(Object.keys((d.changes as Record<string, unknown> | undefined) ?? {}).map(words)) || 'the settings'} of ${service}`,
  ServiceTransferred: (s) => `${s.who} moved ${s.service} from ${project(s, str(s.d.fromProjectId))} to ${project(s, str(s.d.toProjectId))}`,
  ServiceDeleted: ({ who, service }) => `${who} deleted ${service}`,
  ServiceRetired: ({ who, service }) => `${who} cleared away what ${service} held`,
  ServiceReleased: ({ who, d, service }) => (str(d.deploymentId) ? `${who} switched ${service} to its new release` : `${who} took ${service}’s release down`),
  ServiceMoved: ({ who, d, service }) => `${who} moved ${service}’s data to ${str(d.nodeId) ? `node ${str(d.nodeId)}` : 'the manager'}`,
  ServiceStopped: ({ who, service }) => `${who} stopped ${service}`,
  ServiceBecameUnhealthy: ({ who, d, service }) => `${who} marked ${service} ${d.crashed === true ? 'crashed' : 'unhealthy'}${because(d.detail)}`,
  ServiceRecovered: ({ who, service }) => `${who} marked ${service} healthy again`,
  EnvVarSet: ({ who, d, service }) => `${who} set ${str(d.key)} on ${service}`,
  EnvVarDeleted: ({ who, d, service }) => `${who} removed ${str(d.key)} from ${service}`,
  DomainAdded: ({ who, d, service }) => `${who} added the domain ${str(d.hostname)} to ${service}`,
  DomainChanged: ({ who, d, service }) => `${who} changed ${service}’s domain ${str(d.previousHostname)} to ${str(d.hostname)}`,
  DomainRemoved: ({ who, d, service }) => `${who} removed the domain ${str(d.hostname)} from ${service}`,
  DomainDnsRecordApplied: ({ who, d }) =>
    `${who} ${d.action === 'unchanged' ? 'checked' : str(d.action)} the ${str(d.recordType)} record of ${str(d.hostname)} at ${str(d.providerName) || 'the DNS provider'}`,
  DomainCertificateChanged: certificate,

  DeploymentQueued: queued,
  DeploymentStarted: ({ who, service }) => `${who} started deploying ${service}`,
  DeploymentCommitResolved: ({ who, d, service }) => `${who} checked out commit ${str(d.commitSha).slice(0, 7)} of ${service}`,
  DeploymentImageBuilt: ({ who, service }) => `${who} built the image of ${service}`,
  DeploymentContainerStarted: ({ who, service }) => `${who} started ${service}’s new container`,
  DeploymentSucceeded: ({ service }) => `The deployment of ${service} succeeded`,
  DeploymentFailed: ({ d, service }) => `The deployment of ${service} failed${because(d.reason)}`,
  DeploymentRolledBack: ({ who, d, service }) => `${who} rolled back ${service}${because(d.reason)}`,
  DeploymentWatchFailed: ({ d, service }) => `${service}’s new release misbehaved${because(d.reason)}`,
  DeploymentAbortRequested: ({ who, service }) => `${who} asked to abort the deployment of ${service}`,
  DeploymentAborted: ({ service }) => `The deployment of ${service} was aborted`,
  DeploymentCanceled: ({ d, service }) => `The deployment of ${service} was canceled${because(d.reason)}`,
  DeploymentFailureExplained: ({ who, service }) => `${who} explained why the deployment of ${service} failed`,
  DeploymentLogAppended: ({ d, service }) => `${service}’s deployment wrote ${Array.isArray(d.lines) && d.lines.length === 1 ? 'a log line' : 'log lines'}`,

  ReleaseRecorded: ({ who, d, service }) => `${who} recorded release v${String(d.version)} of ${service}${commit(d.commitSha)}`,
  ReleaseImagePruned: (s) => `${s.who} removed the image of ${s.service}’s ${version(s, str(s.d.releaseId))}`,

  AutoDeployConfigured: ({ who, d, service }) => `${who} turned auto-deploy ${d.enabled === true ? 'on' : 'off'} for ${service}`,
  AutoDeploySecretRotated: ({ who, service }) => `${who} made a new webhook secret for ${service}`,
  WebhookDeliveryRecorded: webhook,

  ExecSessionStarted: ({ who, d, service }) => `${who} opened a terminal into ${service}${Array.isArray(d.command) ? ` (${d.command.map(String).join(' ')})` : ''}`,
  ExecSessionEnded: ({ d, service }) =>
    `A terminal into ${service} ended after ${seconds(d.durationMs)}${typeof d.exitCode === 'number' ? ` with exit code ${d.exitCode}` : ''}${str(d.reason) && d.reason !== 'exited' ? ` (${str(d.reason)})` : ''}`,
};
