/** What a history sentence is made from: an audit event as the API answers it, in the few fields a sentence reads. */
export interface HistoryEvent {
  type: string;
  streamId: string;
  actor: string;
  actorName: string | null;
  data: Record<string, unknown>;
}

/** The names a sentence uses in place of ids. */
export interface HistoryNames {
  projects: ReadonlyMap<string, string>;
  services: ReadonlyMap<string, string>;
  keys: ReadonlyMap<string, string>;
  channels: ReadonlyMap<string, string>;
  /** A release's version (`v6`) by its id. */
  versions: ReadonlyMap<string, number>;
  /** The service a deployment, a job run (and their logs), a backup or an import stream is of. */
  owners: ReadonlyMap<string, string>;
}

interface KnownProject {
  id: string;
  name: string;
  services: readonly { id: string; name: string }[];
}

export const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** `deployment-1a2b…` → [`deployment`, `1a2b…`]: a stream is its category and its aggregate's id. */
export function streamParts(streamId: string): [string, string] {
  const dash = streamId.indexOf('-');
  return dash < 0 ? [streamId, ''] : [streamId.slice(0, dash), streamId.slice(dash + 1)];
}

/**
 * The names of the projects, services and (for a key allowed to list them) keys as they are now, and what the events themselves tell: the names of
 * what has since gone, keys (by their creation and by the name each event's actor carries), channels, release
 * versions and which service each deployment, backup and import is of.
 */
export function historyNames(projects: readonly KnownProject[], events: readonly HistoryEvent[], keys: readonly { id: string; name: string }[] = []): HistoryNames {
  const names = {
    projects: new Map<string, string>(),
    services: new Map<string, string>(),
    keys: new Map<string, string>(),
    channels: new Map<string, string>(),
    versions: new Map<string, number>(),
    owners: new Map<string, string>(),
  };
  for (const e of events) {
    const [category, id] = streamParts(e.streamId);
    const d = e.data;
    if (e.actor.startsWith('key:') && e.actorName) names.keys.set(e.actor.slice(4), e.actorName);
    if (e.type === 'ProjectCreated') names.projects.set(id, str(d.name));
    if (e.type === 'ServiceCreated') names.services.set(id, str(d.name));
    if (e.type === 'ApiKeyCreated') names.keys.set(id, str(d.name));
    if (e.type === 'NotificationChannelCreated') names.channels.set(id, str(d.name));
    if (e.type === 'ReleaseRecorded' && typeof d.version === 'number') names.versions.set(str(d.releaseId), d.version);
    if (str(d.serviceId) && ['deployment', 'backup', 'import', 'jobrun'].includes(category)) {
      names.owners.set(e.streamId, str(d.serviceId));
      if (category === 'deployment') names.owners.set(`deploymentlog-${id}`, str(d.serviceId));
      if (category === 'jobrun') names.owners.set(`jobrunlog-${id}`, str(d.serviceId));
    }
  }
  // Today's names win over the names things were created with.
  for (const k of keys) names.keys.set(k.id, k.name);
  for (const p of projects) {
    names.projects.set(p.id, p.name);
    for (const s of p.services) names.services.set(s.id, s.name);
  }
  return names;
}

/** What a phrase reads: who did it, the event's data, the service it is about, and every name. */
export interface Said {
  who: string;
  d: Record<string, unknown>;
  /** The service's name; `a service` when it is unknown. */
  service: string;
  /** The id of the stream's aggregate. */
  id: string;
  names: HistoryNames;
}

export type Phrase = (s: Said) => string;

/** A name from `names`, or what stands for one unknown. */
export const nameOf = (names: ReadonlyMap<string, string>, id: string, unknown: string): string => names.get(id) || unknown;
