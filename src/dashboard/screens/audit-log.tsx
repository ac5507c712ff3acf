import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { ErrorNote } from '../components/error-note.js';
import { EmptyState } from '../components/ui/empty-state.js';
import { ListIcon } from '../components/ui/icons.js';
import { RelativeTime } from '../components/ui/relative-time.js';
import { Skeleton } from '../components/ui/skeleton.js';
import { shortIds } from '../short-id.js';
import { session } from '../session.js';

type AuditEvent = GetAnswer<'/api/events'>['events'][number];
type Project = GetAnswer<'/api/projects'>['projects'][number];

interface Filters {
  projectId: string;
  stream: string;
  actor: string;
  type: string;
  correlationId: string;
}

const EMPTY: Filters = { projectId: '', stream: '', actor: '', type: '', correlationId: '' };

/** The audit log, oldest first, in pages; each entry opens to its (redacted) data and to its whole request. */
export function AuditLogScreen() {
  const projects = useSignal<Project[]>([]);
  const filters = useSignal<Filters>({ ...EMPTY, projectId: session.value?.projectIds?.[0] ?? '' });
  const events = useSignal<AuditEvent[]>([]);
  const next = useSignal<string | null>(null);
  const error = useSignal<string | null>(null);
  const loaded = useSignal(false);

  const fetchPage = async (after: string) => {
    const f = filters.value;
    const query = {
      limit: 100,
      after,
      ...(f.stream ? { stream: f.stream } : {}),
      ...(f.actor ? { actor: f.actor } : {}),
      ...(f.type ? { type: f.type } : {}),
      ...(f.correlationId ? { correlationId: f.correlationId } : {}),
    };
    const answer = f.projectId
      ? await api.GET('/api/projects/{projectId}/events', { params: { path: { projectId: f.projectId }, query } })
      : await api.GET('/api/events', { params: { query } });
    loaded.value = true;
    if (answer.error) return void (error.value = messageOf(answer.error));
    error.value = null;
    events.value = after ? [...events.value, ...answer.data.events] : answer.data.events;
    next.value = answer.data.next;
  };
  useEffect(() => {
    void api.GET('/api/projects').then(({ data }) => (projects.value = data?.projects ?? []));
  }, []);
  useEffect(() => {
    void fetchPage('');
  }, [filters.value]);

  const field = (name: keyof Filters, label: string, placeholder: string) => (
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
          <p>Every change recorded, who made it and the request it came from. Open an entry for its data.</p>
        </div>
      </div>
      <form class="filters audit-filters" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="filter-project">Project</label>
          <select id="filter-project" value={filters.value.projectId} onChange={(e) => (filters.value = { ...filters.value, projectId: e.currentTarget.value })}>
            {session.value?.projectIds === null && <option value="">Every project</option>}
            {projects.value.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        {field('stream', 'Stream', 'service-<id>, …')}
        {field('actor', 'Actor', 'key:<id>, system…')}
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
        <ol class="audit-log">
          {events.value.map((e) => (
            <li key={e.id}>
              <details>
                <summary>
                  <RelativeTime at={e.recordedAt} /> <strong>{e.type}</strong>{' '}
                  <span class="stream" title={e.streamId}>
                    {shortIds(e.streamId)}
                  </span>{' '}
                  <span class="actor" title={e.actor}>
                    {shortIds(e.actor)}
                  </span>
                </summary>
                <div class="audit-entry">
                  <dl class="facts">
                    <dt>Stream</dt>
                    <dd class="mono">{e.streamId}</dd>
                    <dt>Actor</dt>
                    <dd class="mono">{e.actor}</dd>
                    <dt>Request</dt>
                    <dd class="mono">{e.correlationId}</dd>
                  </dl>
                  <pre>{JSON.stringify(e.data, null, 2)}</pre>
                  <button type="button" onClick={() => (filters.value = { ...EMPTY, projectId: filters.value.projectId, correlationId: e.correlationId })}>
                    What happened in this request
                  </button>
                </div>
              </details>
            </li>
          ))}
        </ol>
      )}
      {next.value && (
        <p class="list-more">
          <button type="button" onClick={() => void fetchPage(next.value!)}>
            Load more
          </button>
        </p>
      )}
    </section>
  );
}
