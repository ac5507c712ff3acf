import { nameOf, str, streamParts, type HistoryEvent, type HistoryNames } from './history-names.js';
import { INSTALLATION_PHRASES } from './history-phrases-installation.js';
import { PEOPLE_PHRASES } from './history-phrases-people.js';
import { RUN_PHRASES } from './history-phrases-runs.js';
import { SERVICE_PHRASES } from './history-phrases-services.js';

const PHRASES = { ...SERVICE_PHRASES, ...INSTALLATION_PHRASES, ...PEOPLE_PHRASES, ...RUN_PHRASES };

/** Streams named after the service they are of (`release-<serviceId>`). */
const SERVICE_STREAMS = new Set(['service', 'release', 'autodeploy', 'backupsettings', 'database', 'certificate']);

/** A badge's tone (components/ui/badge.tsx), named here so the module stays free of components. */
export type EventTone = 'success' | 'danger' | 'warning' | 'neutral';

const TONES: Record<string, EventTone> = {
  DeploymentSucceeded: 'success',
  ServiceRecovered: 'success',
  BackupSucceeded: 'success',
  BackupRestored: 'success',
  ImportSucceeded: 'success',
  ClusterNodeCameBack: 'success',
  DeploymentFailed: 'danger',
  DeploymentRolledBack: 'danger',
  DeploymentWatchFailed: 'danger',
  ServiceBecameUnhealthy: 'danger',
  BackupFailed: 'danger',
  BackupRestoreFailed: 'danger',
  ImportFailed: 'danger',
  NotificationAbandoned: 'danger',
  ClusterNodeWentDown: 'danger',
  DeploymentAborted: 'warning',
  DeploymentCanceled: 'warning',
  ServiceStopped: 'warning',
  NotificationAttempted: 'warning',
};

/** How an event's outcome reads at a glance: a failure, a success, something to look at, or nothing to say. */
export const toneOfEvent = (type: string): EventTone => TONES[type] ?? 'neutral';

/** Who did it, in words: the key's name, a person (their name when the API joins it), `The CLI`, or `Slipway` for the installation itself. */
export function actorWords(actor: string, actorName: string | null): string {
  if (actor.startsWith('key:')) return actorName ?? `the key ${actor.slice(4, 12)}`;
  if (actor.startsWith('user:')) return actorName ?? 'A person';
  if (actor === 'cli') return 'The CLI';
  return 'Slipway';
}

/** `ServiceStopped` → `Service stopped`. */
export const humanType = (type: string): string => {
  const words = type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function serviceIdOf(event: HistoryEvent, names: HistoryNames): string {
  const [category, id] = streamParts(event.streamId);
  if (SERVICE_STREAMS.has(category)) return id;
  return str(event.data.serviceId) || (names.owners.get(event.streamId) ?? '');
}

/**
 * An event as a sentence a person reads: who did what to which service, named, not by id ("ci deployed web
 * (commit 3f2a1c9)"); an event type it has no words for reads as its type in words ("Service stopped").
 */
export function historySentence(event: HistoryEvent, names: HistoryNames): string {
  const phrase = PHRASES[event.type];
  if (!phrase) return humanType(event.type);
  const [, id] = streamParts(event.streamId);
  const sentence = phrase({
    who: actorWords(event.actor, event.actorName),
    d: event.data,
    service: nameOf(names.services, serviceIdOf(event, names), 'a service'),
    id,
    names,
  });
  // Names keep their case ("ci deployed web"); only words of ours open with a capital.
  return sentence.startsWith('the key ') ? `T${sentence.slice(1)}` : sentence;
}
