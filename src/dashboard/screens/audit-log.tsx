import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { ErrorNote } from '../components/error-note.js';
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

  const field = (name: keyof Filters, label: string) => (
    <>
      <label for={`filter-${name}`}>{label}</label>
      <input id={`filter-${name}`} value={filters.value[name]} onChange={(e) => (filters.value = { ...filters.value, [name]: e.currentTarget.value.trim() })} />
    </>
  );

  return (
    <section>
      <h1>Audit log</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label for="filter-project">Project</label>
        <select id="filter-project" value={filters.value.projectId} onChange={(e) => (filters.value = { ...filters.value, projectId: e.currentTarget.value })}>
          {session.value?.projectIds === null && <option value="">Every project</option>}
          {projects.value.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        {field('stream', 'Stream (service-<id>, …)')}
        {field('actor', 'Actor')}
        {field('type', 'Event type')}
        {field('correlationId', 'Request id')}
        <button type="button" onClick={() => (filters.value = { ...EMPTY, projectId: filters.value.projectId })}>
          Clear
        </button>
      </form>
      <ErrorNote message={error.value} />
      <ol class="audit-log">
        {events.value.map((e) => (
          <li key={e.id}>
            <details>
              <summary>
                <time dateTime={e.recordedAt}>{e.recordedAt.replace('T', ' ').slice(0, 19)}</time> <strong>{e.type}</strong> {e.streamId} — {e.actor}
              </summary>
              <pre>{JSON.stringify(e.data, null, 2)}</pre>
              <button type="button" onClick={() => (filters.value = { ...EMPTY, projectId: filters.value.projectId, correlationId: e.correlationId })}>
                What happened in this request
              </button>
            </details>
          </li>
        ))}
      </ol>
      {next.value && (
        <button type="button" onClick={() => void fetchPage(next.value!)}>
          More
        </button>
      )}
    </section>
  );
}
