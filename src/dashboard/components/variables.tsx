import { useSignal } from '@preact/signals';
import { api, messageOf, type GetAnswer } from '../api.js';
import { diffVariables, parseEnvFile, type Change } from '../env-file.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { DangerButton } from './danger-button.js';

type Variable = GetAnswer<'/api/services/{serviceId}/overview'>['env'][number];

/** A service's variables: values hidden until asked for, one at a time or a pasted `.env`, with a diff before saving. */
export function Variables({ serviceId, variables, suggestions, changed }: { serviceId: string; variables: Variable[]; suggestions: string[]; changed: () => Promise<void> }) {
  const shown = useSignal<Set<string>>(new Set());
  const pasted = useSignal('');
  const pending = useSignal<Change[] | null>(null);
  const error = useSignal<string | null>(null);
  const key = useSignal('');
  const value = useSignal('');

  const toggle = (id: string) => {
    const next = new Set(shown.value);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    shown.value = next;
  };
  const save = async (entries: { key: string; value: string }[]) => {
    for (const entry of entries) {
      const { error: failed } = await api.POST('/api/services/{serviceId}/env', { params: { path: { serviceId } }, body: entry });
      if (failed) return void (error.value = `${entry.key}: ${messageOf(failed)}`);
    }
    error.value = null;
    pending.value = null;
    pasted.value = '';
    key.value = '';
    value.value = '';
    await changed();
  };
  const remove = async (variable: Variable) => {
    if (!window.confirm(`Remove ${variable.key}?`)) return;
    const { error: failed } = await api.DELETE('/api/services/{serviceId}/env/{envId}', { params: { path: { serviceId, envId: variable.id } } });
    error.value = failed ? messageOf(failed) : null;
    await changed();
  };

  return (
    <section aria-labelledby="variables">
      <h2 id="variables">Variables</h2>
      <ErrorNote message={error.value} />
      <table>
        <tbody>
          {variables.map((v) => (
            <tr key={v.id}>
              <th scope="row">{v.key}</th>
              <td>
                <code>{shown.value.has(v.id) ? v.value : '••••••••'}</code>
              </td>
              <td>
                <button type="button" aria-pressed={shown.value.has(v.id)} onClick={() => toggle(v.id)}>
                  {shown.value.has(v.id) ? 'Hide' : 'Reveal'} <span class="visually-hidden">{v.key}</span>
                </button>
                {canWrite.value && (
                  <DangerButton label="Remove" what={v.key} onClick={() => void remove(v)} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {canWrite.value && (
        <>
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              void save([{ key: key.value, value: value.value }]);
            }}
          >
            <label for="var-key">Key</label>
            <input id="var-key" required pattern="[A-Za-z_][A-Za-z0-9_]*" value={key.value} onInput={(e) => (key.value = e.currentTarget.value)} />
            <label for="var-value">Value</label>
            <input id="var-value" list="var-suggestions" value={value.value} onInput={(e) => (value.value = e.currentTarget.value)} />
            <datalist id="var-suggestions">
              {suggestions.map((s) => (
                <option key={s} value={s} />
              ))}
            </datalist>
            <button type="submit">Set</button>
          </form>
          <label for="env-paste">Paste a .env file</label>
          <textarea id="env-paste" rows={5} value={pasted.value} onInput={(e) => (pasted.value = e.currentTarget.value)} />
          <button type="button" onClick={() => (pending.value = diffVariables(variables, parseEnvFile(pasted.value)))}>
            Review changes
          </button>
          {pending.value && (
            <div class="diff" role="region" aria-label="Changes to save">
              <ul>
                {pending.value.map((c) => (
                  <li key={c.key} class={`change-${c.kind}`}>
                    {c.kind === 'added' ? '+ ' : c.kind === 'changed' ? '~ ' : '= '}
                    {c.key}
                  </li>
                ))}
              </ul>
              <button type="button" onClick={() => void save(pending.value!.filter((c) => c.kind !== 'same').map((c) => ({ key: c.key, value: c.after })))}>
                Save {pending.value.filter((c) => c.kind !== 'same').length} change(s)
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
