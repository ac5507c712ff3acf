import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso';
import { ENGINE_CATALOGUE } from '../../../commands/service/engines.js';
import type { Engine } from '../../shared/database-engine.js';
import { serviceBody, type ServiceSource } from '../../cli/api/service-body.js';
import { api, messageOf } from '../api.js';
import { ErrorNote } from './error-note.js';

const KINDS = {
  image: { label: 'Container image', field: 'Image', placeholder: 'nginx:1.27' },
  repo: { label: 'Hosted repository', field: 'Repository', placeholder: 'owner/name' },
  gitUrl: { label: 'Git URL', field: 'Git URL', placeholder: 'https://git.example.com/team/app.git' },
  engine: { label: 'Database', field: 'Database engine', placeholder: '' },
} as const;
type Kind = keyof typeof KINDS;
const ENGINES = Object.keys(ENGINE_CATALOGUE) as Engine[];

/** A new service of a project, with the same body the CLI's `services create` sends; then its page. */
export function NewService({ projectId, projectName }: { projectId: string; projectName: string }) {
  const kind = useSignal<Kind>('image');
  const error = useSignal<string | null>(null);
  const { route } = useLocation();
  const id = (field: string) => `new-${projectId}-${field}`;

  const create = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim() || undefined;
    const source: ServiceSource = {
      [kind.value]: text('source'),
      port: text('port'),
      ...(kind.value === 'engine' ? { public: data.get('public') === 'on' } : { mode: text('mode') as ServiceSource['mode'], branch: text('branch') }),
    };
    let body: ReturnType<typeof serviceBody>;
    try {
      body = serviceBody(text('name') ?? '', source);
    } catch (failure) {
      return void (error.value = messageOf(failure));
    }
    const { data: created, error: failed } = await api.POST('/api/projects/{projectId}/services', { params: { path: { projectId } }, body });
    if (failed) return void (error.value = messageOf(failed));
    route(`/services/${created.service.id}`);
  };

  const k = KINDS[kind.value];
  return (
    <details class="new-service">
      <summary>
        Add a service <span class="visually-hidden">to {projectName}</span>
      </summary>
      <form
        class="settings"
        aria-label={`New service of ${projectName}`}
        onSubmit={(e) => {
          e.preventDefault();
          void create(e.currentTarget);
        }}
      >
        <ErrorNote message={error.value} />
        <label for={id('name')}>Name</label>
        <input id={id('name')} name="name" required maxLength={100} />
        <label for={id('kind')}>Kind</label>
        <select id={id('kind')} value={kind.value} onChange={(e) => (kind.value = e.currentTarget.value as Kind)}>
          {Object.entries(KINDS).map(([value, { label }]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <label for={id('source')}>{k.field}</label>
        {kind.value === 'engine' ? (
          <select id={id('source')} name="source">
            {ENGINES.map((engine) => (
              <option key={engine} value={engine}>
                {ENGINE_CATALOGUE[engine].label}
              </option>
            ))}
          </select>
        ) : (
          <input id={id('source')} name="source" required placeholder={k.placeholder} />
        )}
        <label for={id('port')}>
          Port <span class="type">(optional)</span>
        </label>
        <input id={id('port')} name="port" inputMode="numeric" pattern="[0-9]+" placeholder={kind.value === 'engine' ? 'the database engine’s' : '3000'} />
        {kind.value === 'engine' ? (
          <label class="check">
            <input type="checkbox" name="public" /> Reachable from outside this server
          </label>
        ) : (
          <>
            <label for={id('mode')}>Runs as</label>
            <select id={id('mode')} name="mode">
              <option value="web">web (gets a URL)</option>
              <option value="worker">worker</option>
              <option value="static">static site</option>
            </select>
            {kind.value !== 'image' && (
              <>
                <label for={id('branch')}>Branch</label>
                <input id={id('branch')} name="branch" placeholder="main" />
              </>
            )}
          </>
        )}
        <button type="submit">Create service</button>
      </form>
    </details>
  );
}
