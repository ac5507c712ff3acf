import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { useLiveReload } from '../live-reload.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { ErrorNote } from './error-note.js';
import { KeyRevocationCell } from './key-revocation-cell.js';
import { FieldError, invalidProps } from './field-error.js';
import { TableHead } from './table-head.js';
import { confirmDialog } from './ui/dialog.js';
import { TableScroll } from './ui/table-scroll.js';

type Key = GetAnswer<'/api/keys'>['keys'][number];
type Project = GetAnswer<'/api/projects'>['projects'][number];

const fieldOf = fieldsByPath({ name: 'name', access: 'access', projectIds: 'projectIds' });
const FIELD_IDS = { name: 'key-name', access: 'key-access', projectIds: 'key-scope' } as const;

/** API keys (an all-project write key's business): create with a scope, the secret shown once, revoke. */
export function ApiKeys() {
  const keys = useSignal<Key[]>([]);
  const projects = useSignal<Project[]>([]);
  const name = useSignal('');
  const access = useSignal<'read' | 'write'>('read');
  const scope = useSignal<string[]>([]);
  const secret = useSignal<string | null>(null);
  const errors = useSignal(NO_ERRORS);
  const load = async () => {
    const [k, p] = await Promise.all([api.GET('/api/keys'), api.GET('/api/projects')]);
    if (k.error) return void (errors.value = { general: messageOf(k.error), fields: {} });
    keys.value = k.data.keys;
    projects.value = p.data?.projects ?? [];
  };
  useEffect(() => {
    void load();
  }, []);
  // A key made or revoked anywhere (another person, the CLI) shows here.
  useLiveReload((change) => change.streamId.startsWith('apikey-'), load);

  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    // No project chosen is not sent: the API's default is every project.
    const body = { name: name.value, access: access.value, ...(scope.value.length ? { projectIds: scope.value } : {}) };
    const { data, error: failed } = await api.POST('/api/keys', { body });
    if (failed) {
      errors.value = formErrors(failed, fieldOf);
      return focusFirstInvalid(form);
    }
    secret.value = data.secret;
    name.value = '';
    errors.value = NO_ERRORS;
    await load();
  };
  const revoke = async (key: Key) => {
    const confirmed = await confirmDialog({
      title: `Revoke the API key ${key.name}?`,
      body: 'Everything using it, browsers signed in with it included, is refused from now on. This cannot be undone.',
      confirmLabel: 'Revoke',
      danger: true,
    });
    if (!confirmed) return;
    const { error: failed } = await api.DELETE('/api/keys/{keyId}', { params: { path: { keyId: key.id } } });
    errors.value = failed ? { general: messageOf(failed), fields: {} } : NO_ERRORS;
    await load();
  };
  const invalid = (field: keyof typeof FIELD_IDS) => invalidProps(FIELD_IDS[field], errors.value.fields[field]);
  const fieldError = (field: keyof typeof FIELD_IDS) => <FieldError id={FIELD_IDS[field]} message={errors.value.fields[field]} />;

  return (
    <section aria-labelledby="keys">
      <h2 id="keys">API keys</h2>
      <ErrorNote message={errors.value.general} />
      {secret.value && (
        <p class="secret" role="status">
          The new key, shown this once: <code>{secret.value}</code>{' '}
          <button type="button" onClick={() => (secret.value = null)}>
            I have copied it
          </button>
        </p>
      )}
      <TableScroll label="API keys">
        <table>
          <TableHead columns={['Name', 'Access', 'Projects', 'Starts with']} actions />
          <tbody>
            {keys.value.map((k) => (
              <tr key={k.id} class={k.revokedAt ? 'revoked' : undefined}>
                <td>{k.name}</td>
                <td>{k.access}</td>
                <td>{k.projectIds === null ? 'every project' : k.projectIds.map((id) => projects.value.find((p) => p.id === id)?.name ?? id).join(', ')}</td>
                <td>
                  <code>{k.prefix}</code>
                </td>
                <KeyRevocationCell name={k.name} revokedAt={k.revokedAt} revoke={() => void revoke(k)} />
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <form class="settings new-key" aria-label="New key" onSubmit={create}>
        <label for="key-name">New key</label>
        <input id="key-name" required maxLength={100} value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} {...invalid('name')} />
        {fieldError('name')}
        <label for="key-access">Access</label>
        <select id="key-access" value={access.value} onChange={(e) => (access.value = e.currentTarget.value as 'read' | 'write')} {...invalid('access')}>
          <option value="read">read</option>
          <option value="write">write</option>
        </select>
        {fieldError('access')}
        <label for="key-scope">Projects (none selected: every project)</label>
        <select id="key-scope" multiple onChange={(e) => (scope.value = [...e.currentTarget.selectedOptions].map((o) => o.value))} {...invalid('projectIds')}>
          {projects.value.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        {fieldError('projectIds')}
        <button type="submit">Create key</button>
      </form>
    </section>
  );
}
