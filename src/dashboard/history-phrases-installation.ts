import { nameOf, str, type Phrase, type Said } from './history-names.js';

const because = (reason: unknown) => (str(reason) ? `: ${str(reason)}` : '');
const key = (s: Said) => (s.names.keys.has(s.id) ? `the key ${s.names.keys.get(s.id)}` : 'an API key');
const channel = (s: Said, id: string) => nameOf(s.names.channels, id, 'a notification channel');
/** `sessionIdleMinutes` → `session idle minutes`. */
const words = (field: string) => field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
const megabytes = (bytes: unknown) => (typeof bytes === 'number' ? ` (${(bytes / 1_000_000).toFixed(1)} MB)` : '');

function keyCreated(s: Said): string {
  const scope = s.d.scope as { kind?: string; projectIds?: unknown[] } | undefined;
  const n = scope?.projectIds?.length ?? 0;
  const projects = scope?.kind === 'projects' ? `${n} project${n === 1 ? '' : 's'}` : 'every project';
  return `${s.who} created the key ${str(s.d.name)} (${str(s.d.access)}, ${projects})`;
}

function backupDeleted({ who, d, service }: Said): string {
  if (d.reason === 'retention') return `${who} deleted an old backup of ${service}, past what is kept`;
  if (d.reason === 'service-deleted') return `${who} deleted a backup of ${service} with the service`;
  return `${who} deleted a backup of ${service}`;
}

function nodeChanged({ who, d }: Said): string {
  const availability: Record<string, string> = { active: 'activated', pause: 'paused', drain: 'drained' };
  return `${who} ${availability[str(d.availability)] ?? 'changed'} node ${str(d.nodeId)}`;
}

/** A name, a port or a restore held for one owner: what is held, as a person knows it. */
const reservation =
  (verb: string): Phrase =>
  (s) => {
    const value = str(s.d.value);
    switch (str(s.d.kind)) {
      case 'service-name':
        return `${s.who} ${verb} the service name ${value.slice(value.indexOf(':') + 1)}`;
      case 'project-slug':
        return `${s.who} ${verb} the project name ${value}`;
      case 'host-port':
        return `${s.who} ${verb} the port ${value}`;
      case 'job-name':
        return `${s.who} ${verb} a job name`;
      case 'database-restore':
        return `${s.who} ${verb} ${nameOf(s.names.services, value, 'a service')} for a restore`;
      default:
        return `${s.who} ${verb} the ${words(str(s.d.kind))} ${value}`;
    }
  };

/** Backups, imports, database edits, keys, settings, notifications, the cluster and certificates. */
export const INSTALLATION_PHRASES: Record<string, Phrase> = {
  BackupRequested: ({ who, d, service }) => `${who} started ${d.trigger === 'scheduled' ? 'the scheduled' : 'a'} backup of ${service}`,
  BackupStarted: ({ who, service }) => `${who} began backing up ${service}`,
  BackupSucceeded: ({ d, service }) => `The backup of ${service} succeeded${megabytes(d.sizeBytes)}`,
  BackupFailed: ({ d, service }) => `The backup of ${service} failed${because(d.error)}`,
  BackupRestoreStarted: ({ who, service }) => `${who} started restoring a backup into ${service}`,
  BackupRestored: ({ service }) => `A backup was restored into ${service}`,
  BackupRestoreFailed: ({ d, service }) => `Restoring a backup into ${service} failed${because(d.error)}`,
  BackupDeleted: backupDeleted,
  BackupFilesRemoved: ({ who, service }) => `${who} removed the files of a deleted backup of ${service}`,
  BackupSettingsChanged: ({ who, service }) => `${who} changed the backup settings of ${service}`,
  JobCreated: ({ who, d, service }) => `${who} scheduled the job ${str(d.name)} of ${service} (${str(d.schedule)}, ${str(d.timezone)})`,
  JobUpdated: ({ who }) => `${who} changed a scheduled job`,
  JobDeleted: ({ who, d }) => (d.reason === 'service-deleted' ? `${who} deleted a scheduled job with its service` : `${who} deleted a scheduled job`),
  ImportRequested: ({ who, d, service }) => `${who} started importing ${str(d.sourceLabel)} into ${service}`,
  ImportStarted: ({ who, service }) => `${who} began the import into ${service}`,
  ImportSucceeded: ({ service }) => `The import into ${service} succeeded`,
  ImportFailed: ({ d, service }) => `The import into ${service} failed${because(d.error)}`,
  DatabaseQueryRun: ({ who, service }) => `${who} ran a query on ${service}`,
  DatabaseRowInserted: ({ who, d, service }) => `${who} inserted a row into ${str(d.table)} of ${service}`,
  DatabaseRowUpdated: ({ who, d, service }) => `${who} edited a row of ${str(d.table)} in ${service}`,
  DatabaseRowDeleted: ({ who, d, service }) => `${who} deleted a row of ${str(d.table)} in ${service}`,

  ApiKeyCreated: keyCreated,
  ApiKeyRevoked: (s) => `${s.who} revoked ${key(s)}`,
  GeneralSettingsChanged: ({ who, d }) => `${who} changed the settings: ${Object.keys(d).map(words).join(', ')}`,
  RemoteStorageConnected: ({ who, d }) => `${who} connected remote storage (${str(d.bucket)} at ${str(d.endpoint)})`,
  RemoteStorageDisconnected: ({ who }) => `${who} disconnected the remote storage`,
  DnsProviderConnected: ({ who, d }) => `${who} connected the DNS provider ${str(d.providerId)}`,
  DnsProviderDisconnected: ({ who, d }) => `${who} disconnected the DNS provider ${str(d.providerId)}`,
  AiProviderConnected: ({ who, d }) => `${who} connected the AI provider ${str(d.providerId)}`,
  AiProviderDisconnected: ({ who, d }) => `${who} disconnected the AI provider ${str(d.providerId)}`,
  OidcConfigured: ({ who, d }) => `${who} set up single sign-on with ${str(d.name)}`,
  OidcRemoved: ({ who }) => `${who} turned single sign-on off`,

  NotificationChannelCreated: ({ who, d }) => `${who} added the notification channel ${str(d.name)} (${str(d.type)})`,
  NotificationChannelUpdated: (s) => `${s.who} changed the notification channel ${channel(s, s.id)}`,
  NotificationChannelDeleted: (s) => `${s.who} deleted the notification channel ${channel(s, s.id)}`,
  NotificationQueued: (s) => `${s.who} queued a notification to ${channel(s, str(s.d.channelId))}`,
  NotificationAttempted: (s) => `${s.who} could not reach ${channel(s, str(s.d.channelId))}${because(s.d.error)}`,
  NotificationDelivered: (s) => `${s.who} notified ${channel(s, str(s.d.channelId))}`,
  NotificationAbandoned: (s) => `${s.who} gave up notifying ${channel(s, str(s.d.channelId))}${because(s.d.reason)}`,

  ClusterInitialized: ({ who, d }) => `${who} made the installation a cluster manager at ${str(d.advertiseAddress)}`,
  ClusterJoinCommandIssued: ({ who, d }) => `${who} issued a command to join a ${str(d.role)}`,
  ClusterNodeChanged: nodeChanged,
  ClusterNodeRemoved: ({ who, d }) => `${who} removed node ${str(d.nodeId)}`,
  ClusterNodeWentDown: ({ d }) => `The node ${str(d.hostname)} went down`,
  ClusterNodeCameBack: ({ d }) => `The node ${str(d.hostname)} came back`,

  CertificateAuthorityCreated: ({ who }) => `${who} created the installation’s certificate authority`,
  ServerCertificateIssued: ({ who, service }) => `${who} issued a TLS certificate to ${service}`,
  Reserved: reservation('reserved'),
  Released: reservation('released'),
};
