import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { ErrorNote } from './error-note.js';
import { DangerButton } from './danger-button.js';
import { TableHead } from './table-head.js';

type Key = GetAnswer<'/api/keys'>['keys'][number];
type Project = GetAnswer<'/api/projects'>['projects'][number];

/** API keys (an all-project write key's business): create with a scope, the secret shown once, revoke. */
export function ApiKeys() {
  const keys = useSignal<Key[]>([]);
  const projects = useSignal<Project[]>([]);
  const name = useSignal('');
  const access = useSignal<'read' | 'write'>('read');
  const scope = useSignal<string[]>([]);
  const secret = useSignal<string | null>(null);
  const error = useSignal<string | null>(null);
  const load = async () => {
    const [k, p] = await Promise.all([api.GET('/api/keys'), api.GET('/api/projects')]);
    if (k.error) return void (error.value = messageOf(k.error));
    keys.value = k.data.keys;
    projects.value = p.data?.projects ?? [];
  };
  useEffect(() => {
    void load();
  }, []);

  const create = async (event: Event) => {
    event.preventDefault();
    const { data, error: failed } = await api.POST('/api/keys', { body: { name: name.value, access: access.value, projectIds: scope.value.length ? scope.value : null } });
    if (failed) return void (error.value = messageOf(failed));
    secret.value = data.secret;
    name.value = '';
    error.value = null;
    await load();
  };
  const revoke = async (key: Key) => {
    if (!window.confirm(`Revoke ${key.name}? Everything using it, signed-in browsers included, is refused from now on.`)) return;
    const { error: failed } = await api.DELETE('/api/keys/{keyId}', { params: { path: { keyId: key.id } } });
    error.value = failed ? messageOf(failed) : null;
    await load();
  };

  return (
    <section aria-labelledby="keys">
      <h2 id="keys">API keys</h2>
      <ErrorNote message={error.value} />
      {secret.value && (
        <p class="secret" role="status">
          The new key, shown this once: <code>{secret.value}</code>{' '}
          <button type="button" onClick={() => (secret.value = null)}>
            I have copied it
          </button>
        </p>
      )}
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
              <td>
                {k.revokedAt ? (
                  `revoked ${k.revokedAt.slice(0, 10)}`
                ) : (
                  <DangerButton label="Revoke" what={k.name} onClick={() => void revoke(k)} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="filters" onSubmit={create}>
        <label for="key-name">New key</label>
        <input id="key-name" required maxLength={100} value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
        <label for="key-access">Access</label>
        <select id="key-access" value={access.value} onChange={(e) => (access.value = e.currentTarget.value as 'read' | 'write')}>
          <option value="read">read</option>
          <option value="write">write</option>
        </select>
        <label for="key-scope">Projects (none selected: every project)</label>
        <select id="key-scope" multiple onChange={(e) => (scope.value = [...e.currentTarget.selectedOptions].map((o) => o.value))}>
          {projects.value.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <button type="submit">Create key</button>
      </form>
    </section>
  );
}
