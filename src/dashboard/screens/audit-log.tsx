import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, type GetAnswer } from '../api.js';
import { useAuditFeed, type AuditFilters } from '../audit-feed.js';
import { AuditEntry } from '../components/audit-entry.js';
import { ErrorNote } from '../components/error-note.js';
import { EmptyState } from '../components/ui/empty-state.js';
import { ListIcon } from '../components/ui/icons.js';
import { Skeleton } from '../components/ui/skeleton.js';
import { groupByRequest } from '../history-groups.js';
import { historyNames } from '../history-names.js';
import { projects } from '../projects-store.js';
import { session } from '../session.js';

type ApiKey = GetAnswer<'/api/keys'>['keys'][number];

const EMPTY: AuditFilters = { projectId: '', stream: '', actor: '', type: '', correlationId: '' };

/**
 * The audit log in sentences, newest first, what happens joining at the top; one entry per request, each opening
 * to its events in full (type, stream, ids, redacted data) and to everything its request did.
 */
export function AuditLogScreen() {
  const filters = useSignal<AuditFilters>({ ...EMPTY, projectId: session.value?.projectIds?.[0] ?? '' });
  const { events, older, loaded, error, loadingOlder, loadOlder } = useAuditFeed(filters);
  const keys = useSignal<ApiKey[]>([]);
  useEffect(() => {
    // Only an all-project write key may list keys: the others name keys by the events they see.
    if (session.value?.access === 'write' && session.value.projectIds === null) void api.GET('/api/keys').then(({ data }) => (keys.value = data?.keys ?? []));
  }, []);
  const names = historyNames(projects.value ?? [], events.value, keys.value);

  const field = (name: keyof AuditFilters, label: string, placeholder: string) => (
    <div class="field">
      <label for={`filter-${name}`}>{label}</label>
      <input id={`filter-${name}`} placeholder={placeholder} value={filters.value[name]} onChange={(e) => (filters.value = { ...filters.value, [name]: e.currentTarget.value.trim() })} />
    </div>
  );

  return (
    <section>
      <div class="page-header">
        <div>
          <h1>Audit log</h1>
          <p>Every change, newest first: who made it and what it did. Open an entry for the events it recorded.</p>
        </div>
      </div>
      <form class="filters audit-filters" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="filter-project">Project</label>
          <select id="filter-project" value={filters.value.projectId} onChange={(e) => (filters.value = { ...filters.value, projectId: e.currentTarget.value })}>
            {session.value?.projectIds === null && <option value="">Every project</option>}
            {(projects.value ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        {field('stream', 'Stream', 'service-<id>, …')}
        {field('actor', 'Actor', 'key:<id>, cli, system…')}
        {field('type', 'Event type', 'ServiceCreated')}
        {field('correlationId', 'Request id', 'req-…')}
        <button type="button" class="btn-ghost" onClick={() => (filters.value = { ...EMPTY, projectId: filters.value.projectId })}>
          Clear filters
        </button>
      </form>
      <ErrorNote message={error.value} />
      {!loaded.value ? (
        <Skeleton count={6} />
      ) : events.value.length === 0 ? (
        !error.value && (
          <EmptyState title="No events match these filters" icon={<ListIcon />}>
            <p>Clear a filter, or choose another project.</p>
          </EmptyState>
        )
      ) : (
        <ol class="surface-list audit-log">
          {groupByRequest(events.value).map((group) => (
            <AuditEntry key={group.events[0]!.id} group={group} names={names} onRequest={(correlationId) => (filters.value = { ...EMPTY, projectId: filters.value.projectId, correlationId })} />
          ))}
        </ol>
      )}
      {older.value && (
        <p class="list-more">
          <button type="button" disabled={loadingOlder.value} onClick={() => void loadOlder()}>
            Load older
          </button>
        </p>
      )}
    </section>
  );
}
