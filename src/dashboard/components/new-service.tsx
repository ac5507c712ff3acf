import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso';
import { ENGINE_CATALOGUE } from '../../../commands/service/engines.js';
import type { Engine } from '../../shared/database-engine.js';
import { serviceBody, type ServiceSource } from '../../cli/api/service-body.js';
import { api } from '../api.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS, type FormErrors } from '../form-errors.js';
import { ErrorNote } from './error-note.js';
import { FieldError, invalidProps } from './field-error.js';

const KINDS = {
  image: { label: 'Container image', field: 'Image', placeholder: 'nginx:1.27' },
  repo: { label: 'Hosted repository', field: 'Repository', placeholder: 'owner/name' },
  gitUrl: { label: 'Git URL', field: 'Git URL', placeholder: 'https://git.example.com/team/app.git' },
  push: { label: 'git push to Slipway', field: '', placeholder: '' },
  engine: { label: 'Database', field: 'Database engine', placeholder: '' },
} as const;
type Kind = keyof typeof KINDS;
const ENGINES = Object.keys(ENGINE_CATALOGUE) as Engine[];
const fieldOf = fieldsByPath({ name: 'name', dockerImage: 'source', repoFullName: 'source', repoUrl: 'source', internalPort: 'port', branch: 'branch', runtimeMode: 'mode' });

/** A new service of a project, with the same body the CLI's `services create` sends; then its page. */
export function NewService({ projectId, projectName }: { projectId: string; projectName: string }) {
  const kind = useSignal<Kind>('image');
  const errors = useSignal<FormErrors>(NO_ERRORS);
  const { route } = useLocation();
  const id = (field: string) => `new-${projectId}-${field}`;

  const create = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    // A field left empty, and the mode left at web, are not sent: the API's defaults are the same.
    const text = (name: string) => String(data.get(name) ?? '').trim() || undefined;
    const mode = text('mode') === 'web' ? undefined : (text('mode') as ServiceSource['mode']);
    const source: ServiceSource = {
      [kind.value]: kind.value === 'push' ? true : text('source'),
      port: text('port'),
      ...(kind.value === 'engine' ? { public: data.get('public') === 'on' } : { mode, branch: text('branch') }),
    };
    let body: ReturnType<typeof serviceBody>;
    try {
      body = serviceBody(text('name') ?? '', source);
    } catch (failure) {
      return void (errors.value = formErrors(failure, () => null));
    }
    const { data: created, error: failed } = await api.POST('/api/projects/{projectId}/services', { params: { path: { projectId } }, body });
    if (failed) {
      errors.value = formErrors(failed, fieldOf);
      return focusFirstInvalid(form);
    }
    route(`/services/${created.service.id}`);
  };
  const invalid = (field: string) => invalidProps(id(field), errors.value.fields[field]);
  const fieldError = (field: string) => <FieldError id={id(field)} message={errors.value.fields[field]} />;

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
        <ErrorNote message={errors.value.general} />
        <label for={id('name')}>Name</label>
        <input id={id('name')} name="name" required maxLength={100} {...invalid('name')} />
        {fieldError('name')}
        <label for={id('kind')}>Kind</label>
        <select id={id('kind')} value={kind.value} onChange={(e) => (kind.value = e.currentTarget.value as Kind)}>
          {Object.entries(KINDS).map(([value, { label }]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {kind.value === 'push' ? (
          <p class="muted">No upstream: the service builds what you push to it. Its page shows the remote to add.</p>
        ) : (
          <label for={id('source')}>{k.field}</label>
        )}
        {kind.value === 'push' ? null : kind.value === 'engine' ? (
          <select id={id('source')} name="source">
            {ENGINES.map((engine) => (
              <option key={engine} value={engine}>
                {ENGINE_CATALOGUE[engine].label}
              </option>
            ))}
          </select>
        ) : (
          <input id={id('source')} name="source" required placeholder={k.placeholder} {...invalid('source')} />
        )}
        {fieldError('source')}
        <label for={id('port')}>
          Port <span class="type">(optional)</span>
        </label>
        <input id={id('port')} name="port" inputMode="numeric" pattern="[0-9]+" placeholder={kind.value === 'engine' ? 'the database engine’s' : '3000'} {...invalid('port')} />
        {fieldError('port')}
        {kind.value === 'engine' ? (
          <label class="check">
            <input type="checkbox" name="public" /> Reachable from outside this server
          </label>
        ) : (
          <>
            <label for={id('mode')}>Runs as</label>
            <select id={id('mode')} name="mode" {...invalid('mode')}>
              <option value="web">web (gets a URL)</option>
              <option value="worker">worker</option>
              <option value="static">static site</option>
            </select>
            {fieldError('mode')}
            {kind.value !== 'image' && (
              <>
                <label for={id('branch')}>Branch</label>
                <input id={id('branch')} name="branch" placeholder="main" {...invalid('branch')} />
                {fieldError('branch')}
              </>
            )}
          </>
        )}
        <button type="submit">Create service</button>
      </form>
    </details>
  );
}
