import { useSignal } from '@preact/signals';
import { api, messageOf, type GetAnswer } from '../api.js';
import { engineVariables } from '../engine-variables.js';
import { diffVariables, parseEnvFile, type Change } from '../env-file.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { canWrite } from '../session.js';
import { ErrorNote } from './error-note.js';
import { DangerButton } from './danger-button.js';
import { FieldError, invalidProps } from './field-error.js';
import { confirmDialog } from './ui/dialog.js';

type Variable = GetAnswer<'/api/services/{serviceId}/overview'>['env'][number];

const fieldOf = fieldsByPath({ key: 'key', value: 'value' });
const FIELD_IDS = { key: 'var-key', value: 'var-value' } as const;

/**
 * A service's variables: values hidden until asked for, one at a time or a pasted `.env`, with a diff before
 * saving. A change never restarts anything (src/http/routes/env.ts records it, nothing more): the running
 * release keeps the values it started with until the next deployment, and the form says so.
 */
export function Variables({ serviceId, engine, variables, suggestions, changed }: { serviceId: string; engine: string | null; variables: Variable[]; suggestions: string[]; changed: () => Promise<void> }) {
  const shown = useSignal<Set<string>>(new Set());
  const pasted = useSignal('');
  const pending = useSignal<Change[] | null>(null);
  const errors = useSignal(NO_ERRORS);
  const note = useSignal<string | null>(null);
  const key = useSignal('');
  const value = useSignal('');
  const engineOwned = engineVariables(engine);
  const kept = variables.filter((v) => engineOwned?.keys.has(v.key)).map((v) => v.key);

  const toggle = (id: string) => {
    const next = new Set(shown.value);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    shown.value = next;
  };
  /** Saves each entry; `form` is the one-variable form, whose refusals are shown at its fields. */
  const save = async (entries: { key: string; value: string }[], form: HTMLFormElement | null) => {
    note.value = null;
    for (const entry of entries) {
      const { error: failed } = await api.POST('/api/services/{serviceId}/env', { params: { path: { serviceId } }, body: entry });
      if (failed) {
        errors.value = form ? formErrors(failed, fieldOf) : { general: `${entry.key}: ${messageOf(failed)}`, fields: {} };
        return focusFirstInvalid(form);
      }
    }
    errors.value = NO_ERRORS;
    pending.value = null;
    pasted.value = '';
    key.value = '';
    value.value = '';
    note.value = `Saved ${entries.map((e) => e.key).join(', ')}: ${entries.length === 1 ? 'it applies' : 'they apply'} at the next deployment.`;
    await changed();
  };
  const remove = async (variable: Variable) => {
    const confirmed = await confirmDialog({
      title: `Remove the variable ${variable.key}?`,
      body: 'The running release keeps it; the next deployment starts without it.',
      confirmLabel: 'Remove',
      danger: true,
    });
    if (!confirmed) return;
    const { error: failed } = await api.DELETE('/api/services/{serviceId}/env/{envId}', { params: { path: { serviceId, envId: variable.id } } });
    errors.value = failed ? formErrors(failed, () => null) : NO_ERRORS;
    note.value = failed ? null : `Removed ${variable.key}: the next deployment starts without it.`;
    await changed();
  };
  const fieldError = (field: keyof typeof FIELD_IDS) => errors.value.fields[field];

  return (
    <section aria-labelledby="variables">
      <h2 id="variables">Variables</h2>
      <ErrorNote message={errors.value.general} />
      {note.value && <p role="status">{note.value}</p>}
      {engineOwned && kept.length > 0 && (
        <p class="help">
          {kept.join(', ')} came with this {engineOwned.label} database: the engine reads them when it starts and other services connect with them, so they
          cannot be removed here. A new value can still be set.
        </p>
      )}
      <table>
        <tbody>
          {variables.map((v) => (
            <tr key={v.id}>
              <th scope="row">{v.key}</th>
              <td>
                <code>{shown.value.has(v.id) ? v.value : '••••••••'}</code>
              </td>
              <td>
                {v.masked ? (
                  <span class="help">hidden from viewers</span>
                ) : (
                  <button type="button" aria-pressed={shown.value.has(v.id)} onClick={() => toggle(v.id)}>
                    {shown.value.has(v.id) ? 'Hide' : 'Reveal'} <span class="visually-hidden">{v.key}</span>
                  </button>
                )}
                {canWrite.value &&
                  (engineOwned?.keys.has(v.key) ? (
                    <span class="help">kept for {engineOwned.label}</span>
                  ) : (
                    <DangerButton label="Remove" what={v.key} onClick={() => void remove(v)} />
                  ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {canWrite.value && (
        <>
          <p class="help">A change applies at the next deployment: the running release keeps the values it started with.</p>
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              void save([{ key: key.value, value: value.value }], e.currentTarget);
            }}
          >
            <label for="var-key">Key</label>
            <input id="var-key" required pattern="[A-Za-z_][A-Za-z0-9_]*" value={key.value} onInput={(e) => (key.value = e.currentTarget.value)} {...invalidProps(FIELD_IDS.key, fieldError('key'))} />
            <FieldError id={FIELD_IDS.key} message={fieldError('key')} />
            <label for="var-value">Value</label>
            <input id="var-value" list="var-suggestions" value={value.value} onInput={(e) => (value.value = e.currentTarget.value)} {...invalidProps(FIELD_IDS.value, fieldError('value'))} />
            <FieldError id={FIELD_IDS.value} message={fieldError('value')} />
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
              <button type="button" onClick={() => void save(pending.value!.filter((c) => c.kind !== 'same').map((c) => ({ key: c.key, value: c.after })), null)}>
                Save {pending.value.filter((c) => c.kind !== 'same').length} change(s)
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
