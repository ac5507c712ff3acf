import { useSignal, type Signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from './api.js';
import { useLiveReload } from './live-reload.js';

export type AuditEvent = GetAnswer<'/api/events'>['events'][number];

export interface AuditFilters {
  projectId: string;
  stream: string;
  actor: string;
  type: string;
  correlationId: string;
}

const PAGE = 100;

/** A build's and a run's log lines are events too: left out unless asked for by type, they would bury everything else. */
const LOG_LINES = 'DeploymentLogAppended,JobRunLogAppended';

function fetchPage(f: AuditFilters, after: string) {
  const query = {
    limit: PAGE,
    order: 'desc' as const,
    ...(after ? { after } : {}),
    ...(f.stream ? { stream: f.stream } : {}),
    ...(f.actor ? { actor: f.actor } : {}),
    ...(f.type ? { type: f.type } : { excludeType: LOG_LINES }),
    ...(f.correlationId ? { correlationId: f.correlationId } : {}),
  };
  return f.projectId
    ? api.GET('/api/projects/{projectId}/events', { params: { path: { projectId: f.projectId }, query } })
    : api.GET('/api/events', { params: { query } });
}

export interface AuditFeed {
  /** Newest first. */
  events: Signal<AuditEvent[]>;
  /** Where older events start; null when the oldest is listed. */
  older: Signal<string | null>;
  loaded: Signal<boolean>;
  error: Signal<string | null>;
  /** A page of older events is on its way: a second click would add it twice. */
  loadingOlder: Signal<boolean>;
  loadOlder: () => Promise<void>;
}

/**
 * The audit log under `filters`, newest first, a page at a time going back; what happens meanwhile (the change
 * feed says so) joins at the top. An answer for filters no longer chosen is dropped.
 */
export function useAuditFeed(filters: Signal<AuditFilters>): AuditFeed {
  const events = useSignal<AuditEvent[]>([]);
  const older = useSignal<string | null>(null);
  const loaded = useSignal(false);
  const error = useSignal<string | null>(null);
  const loadingOlder = useSignal(false);

  const read = async (after: string) => {
    const asked = filters.value;
    const answer = await fetchPage(asked, after);
    if (asked !== filters.value) return null;
    loaded.value = true;
    if (answer.error) {
      error.value = messageOf(answer.error);
      return null;
    }
    error.value = null;
    return answer.data;
  };

  /** The newest page, joined at the top of the list; or in its place, for new filters. */
  const reloadNewest = async (replace = false) => {
    const page = await read('');
    if (!page) return;
    const newest = events.value[0]?.position;
    // More new events than the page holds would leave a gap: then the list starts again from this page.
    const joins = !replace && newest !== undefined && page.events.some((e) => e.position <= newest);
    if (!joins) {
      events.value = page.events;
      older.value = page.next;
      return;
    }
    const fresh = page.events.filter((e) => e.position > newest);
    if (fresh.length) events.value = [...fresh, ...events.value];
  };

  const loadOlder = async () => {
    if (!older.value || loadingOlder.value) return;
    loadingOlder.value = true;
    try {
      const page = await read(older.value);
      if (!page) return;
      events.value = [...events.value, ...page.events];
      older.value = page.next;
    } finally {
      loadingOlder.value = false;
    }
  };

  useEffect(() => void reloadNewest(true), [filters.value]);
  useLiveReload(() => true, reloadNewest);

  return { events, older, loaded, error, loadingOlder, loadOlder };
}
