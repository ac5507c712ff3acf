import { useSignal } from '@preact/signals';
import { Fragment } from 'preact';
import { useEffect } from 'preact/hooks';
import type { paths } from '../../shared/api-types.js';
import { api, messageOf, type GetAnswer } from '../api.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { ErrorNote } from './error-note.js';
import { FieldError, invalidProps } from './field-error.js';

type Settings = GetAnswer<'/api/settings'>['settings'];
type SettingsChange = paths['/api/settings']['patch']['requestBody']['content']['application/json'];

/** The installation's plain settings; empty puts back the environment's default (null). */
const FIELDS = [
  { name: 'apiDomain', label: 'API domain', kind: 'text' },
  { name: 'rootDomain', label: 'Root domain', kind: 'text' },
  { name: 'publicIp', label: 'Public IP', kind: 'text' },
  { name: 'acmeEmail', label: 'ACME e-mail', kind: 'text' },
  { name: 'acmeDirectoryUrl', label: 'ACME directory', kind: 'text' },
  { name: 'httpsEnabled', label: 'HTTPS', kind: 'boolean' },
  { name: 'denyPrivateDestinations', label: 'Refuse private destinations', kind: 'boolean' },
  { name: 'allowedDestinations', label: 'Allowed destinations (comma-separated)', kind: 'list' },
  { name: 'sessionIdleMinutes', label: 'Session idle minutes', kind: 'number' },
  { name: 'sessionMaxHours', label: 'Session lifetime (hours)', kind: 'number' },
] as const;
type Field = (typeof FIELDS)[number];
const fieldOf = fieldsByPath(Object.fromEntries(FIELDS.map((f) => [f.name, f.name])));

const textOf = (value: string | number | boolean | string[] | null | undefined) => (Array.isArray(value) ? value.join(', ') : String(value ?? ''));

export function GeneralSettings() {
  const settings = useSignal<Settings | null>(null);
  const draft = useSignal<Record<string, string>>({});
  const errors = useSignal(NO_ERRORS);
  const saved = useSignal<string | null>(null);
  const load = async () => {
    const { data, error: failed } = await api.GET('/api/settings');
    if (failed) return void (errors.value = { general: messageOf(failed), fields: {} });
    settings.value = data.settings;
    draft.value = Object.fromEntries(FIELDS.map((f) => [f.name, textOf(data.settings[f.name])]));
  };
  useEffect(() => {
    void load();
  }, []);

  const valueOf = (field: Field, text: string): unknown => {
    if (text.trim() === '') return null;
    if (field.kind === 'boolean') return text === 'true';
    if (field.kind === 'number') return Number(text);
    if (field.kind === 'list') return text.split(',').map((entry) => entry.trim()).filter(Boolean);
    return text.trim();
  };
  const save = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const current = settings.value!;
    const body: SettingsChange = Object.fromEntries(
      FIELDS.filter((f) => draft.value[f.name] !== textOf(current[f.name])).map((f) => [f.name, valueOf(f, draft.value[f.name]!)]),
    );
    if (Object.keys(body).length === 0) {
      errors.value = NO_ERRORS;
      saved.value = 'Nothing changed.';
      return;
    }
    const { error: failed } = await api.PATCH('/api/settings', { body });
    saved.value = failed ? null : 'Saved.';
    // A refusal keeps what was typed, with the API's words at each field it names.
    if (failed) {
      errors.value = formErrors(failed, fieldOf);
      return focusFirstInvalid(form);
    }
    errors.value = NO_ERRORS;
    await load();
  };

  const s = settings.value;
  if (!s) return <ErrorNote message={errors.value.general} />;
  return (
    <section aria-labelledby="general">
      <h2 id="general">Settings</h2>
      <ErrorNote message={errors.value.general} />
      <form class="settings" onSubmit={save}>
        {FIELDS.map((f) => {
          const id = `setting-${f.name}`;
          const invalid = invalidProps(id, errors.value.fields[f.name]);
          return (
            <Fragment key={f.name}>
              <label for={id}>
                {f.label} <span class="type">({s.sources[f.name]})</span>
              </label>
              {f.kind === 'boolean' ? (
                <select id={id} value={draft.value[f.name]} onChange={(e) => (draft.value = { ...draft.value, [f.name]: e.currentTarget.value })} {...invalid}>
                  <option value="true">on</option>
                  <option value="false">off</option>
                </select>
              ) : (
                <input
                  id={id}
                  value={draft.value[f.name]}
                  onInput={(e) => (draft.value = { ...draft.value, [f.name]: e.currentTarget.value })}
                  {...(f.kind === 'number' ? { inputMode: 'numeric' as const, pattern: '[0-9]+' } : {})}
                  {...invalid}
                />
              )}
              <FieldError id={id} message={errors.value.fields[f.name]} />
            </Fragment>
          );
        })}
        <button type="submit">Save settings</button>
        {saved.value && <p role="status">{saved.value}</p>}
      </form>
    </section>
  );
}
