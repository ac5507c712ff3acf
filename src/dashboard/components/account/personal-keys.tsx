import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../../api.js';
import { copyText } from '../../copy-text.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../../form-errors.js';
import { KeyRevocationCell } from '../key-revocation-cell.js';
import { ErrorNote } from '../error-note.js';
import { FieldError, invalidProps } from '../field-error.js';
import { TableHead } from '../table-head.js';
import { confirmDialog } from '../ui/dialog.js';
import { RelativeTime } from '../ui/relative-time.js';
import { TableScroll } from '../ui/table-scroll.js';

type Key = GetAnswer<'/api/users/me/keys'>['keys'][number];
type Project = GetAnswer<'/api/projects'>['projects'][number];
const fieldOf = fieldsByPath({ name: 'name', access: 'access', projectIds: 'projectIds' });

/** My personal API keys (for the CLI, a script): never more than I may do; the key shown once; revoke. */
export function PersonalKeys() {
  const keys = useSignal<Key[]>([]);
  const projects = useSignal<Project[]>([]);
  const name = useSignal('');
  const access = useSignal<'read' | 'write'>('read');
  const scope = useSignal<string[]>([]);
  const secret = useSignal<string | null>(null);
  const errors = useSignal(NO_ERRORS);
  const load = async () => {
    const [k, p] = await Promise.all([api.GET('/api/users/me/keys'), api.GET('/api/projects')]);
    if (k.error) return void (errors.value = { general: messageOf(k.error), fields: {} });
    keys.value = k.data.keys;
    projects.value = p.data?.projects ?? [];
  };
  useEffect(() => {
    void load();
  }, []);

  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    // No project chosen is not sent: the key sees what I see.
    const body = { name: name.value.trim(), access: access.value, ...(scope.value.length ? { projectIds: scope.value } : {}) };
    const { data, error } = await api.POST('/api/users/me/keys', { body });
    if (error) {
      errors.value = formErrors(error, fieldOf);
      return focusFirstInvalid(form);
    }
    errors.value = NO_ERRORS;
    secret.value = data.secret;
    name.value = '';
    await load();
  };
  const revoke = async (key: Key) => {
    const confirmed = await confirmDialog({ title: `Revoke your key ${key.name}?`, body: 'Whatever uses it is refused from now on. This cannot be undone.', confirmLabel: 'Revoke', danger: true });
    if (!confirmed) return;
    const { error } = await api.DELETE('/api/users/me/keys/{keyId}', { params: { path: { keyId: key.id } } });
    errors.value = error ? { general: messageOf(error), fields: {} } : NO_ERRORS;
    await load();
  };
  const projectNames = (ids: string[] | null) => (ids === null ? 'all mine' : ids.map((id) => projects.value.find((p) => p.id === id)?.name ?? 'a project no longer mine').join(', '));

  return (
    <section aria-labelledby="personal-keys">
      <h2 id="personal-keys">Personal API keys</h2>
      <p class="muted">For the CLI or a script: a key does what you may do, within its own access and projects, and stops when you are removed.</p>
      <ErrorNote message={errors.value.general} />
      {secret.value && (
        <div class="secret" role="status">
          <p>The new key, shown this once:</p>
          <p class="link-row">
            <code id="personal-key-secret">{secret.value}</code>
            <button type="button" onClick={() => void copyText(secret.value!, 'Key')}>
              Copy <span class="visually-hidden">the key</span>
            </button>
            <button type="button" class="btn-ghost" onClick={() => (secret.value = null)}>
              I have copied it
            </button>
          </p>
        </div>
      )}
      {keys.value.length > 0 && (
        <TableScroll label="Your keys">
          <table>
            <TableHead columns={['Name', 'Access', 'Projects', 'Starts with', 'Created']} actions />
            <tbody>
              {keys.value.map((k) => (
                <tr key={k.id} class={k.revokedAt ? 'revoked' : undefined}>
                  <td>{k.name}</td>
                  <td>{k.access}</td>
                  <td>{projectNames(k.projectIds)}</td>
                  <td>
                    <code>{k.prefix}</code>
                  </td>
                  <td>
                    <RelativeTime at={k.createdAt} />
                  </td>
                  <KeyRevocationCell name={k.name} revokedAt={k.revokedAt} revoke={() => void revoke(k)} />
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <form class="settings aligned" aria-label="New personal key" onSubmit={create}>
        <label for="my-key-name">New key</label>
        <input id="my-key-name" required maxLength={100} placeholder="laptop CLI" value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} {...invalidProps('my-key-name', errors.value.fields.name)} />
        <FieldError id="my-key-name" message={errors.value.fields.name} />
        <label for="my-key-access">Access</label>
        <select id="my-key-access" value={access.value} onChange={(e) => (access.value = e.currentTarget.value as 'read' | 'write')} {...invalidProps('my-key-access', errors.value.fields.access)}>
          <option value="read">read</option>
          <option value="write">write</option>
        </select>
        <FieldError id="my-key-access" message={errors.value.fields.access} />
        <label for="my-key-scope">Projects</label>
        <select
          id="my-key-scope"
          multiple
          onChange={(e) => (scope.value = [...e.currentTarget.selectedOptions].map((o) => o.value))}
          {...invalidProps('my-key-scope', errors.value.fields.projectIds)}
          aria-describedby={errors.value.fields.projectIds ? 'my-key-scope-error my-key-scope-help' : 'my-key-scope-help'}
        >
          {projects.value.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <p id="my-key-scope-help" class="help">
          None selected: every project of yours.
        </p>
        <FieldError id="my-key-scope" message={errors.value.fields.projectIds} />
        <button type="submit">Create key</button>
      </form>
    </section>
  );
}
