import { useSignal } from '@preact/signals';
import { Fragment } from 'preact';
import { focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { ErrorNote } from './error-note.js';
import { FieldError, invalidProps } from './field-error.js';

export interface ConnectionField {
  name: string;
  label: string;
  /** Sent once, never shown again: a password input, and left empty on the form. */
  secret?: boolean;
  optional?: boolean;
  kind?: 'text' | 'boolean';
  placeholder?: string;
}

/**
 * The form that connects an outside service (DNS, AI, storage). Slipway saves a connection only once the
 * service answered with it, so the API's refusal (the service's own words) is shown here, at the field it
 * names when it names one. A field left empty or unticked is not sent: the API's default applies.
 * `connect` answers the API's error body, or null once connected.
 */
export function ConnectionForm({
  id,
  label,
  fields,
  submit,
  note,
  connect,
}: {
  id: string;
  label: string;
  fields: ConnectionField[];
  submit: string;
  /** What saving does beyond connecting, when it is not plain (it replaces a connection). */
  note?: string;
  connect: (body: Record<string, unknown>) => Promise<unknown>;
}) {
  const errors = useSignal(NO_ERRORS);
  const busy = useSignal(false);
  const fieldOf = (path: string) => fields.find((f) => path === f.name || path.startsWith(`${f.name}.`))?.name ?? null;
  const send = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const body: Record<string, unknown> = {};
    for (const f of fields) {
      if (f.kind === 'boolean') {
        if (data.get(f.name) === 'on') body[f.name] = true;
      } else {
        const value = String(data.get(f.name) ?? '').trim();
        if (value) body[f.name] = value;
      }
    }
    busy.value = true;
    const failed = await connect(body);
    busy.value = false;
    errors.value = failed ? formErrors(failed, fieldOf) : NO_ERRORS;
    if (failed) focusFirstInvalid(form);
    else form.reset();
  };
  return (
    <form
      class="settings"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        void send(e.currentTarget);
      }}
    >
      <ErrorNote message={errors.value.general} />
      {note && <p class="help">{note}</p>}
      {fields.map((f) => {
        const fieldId = `${id}-${f.name}`;
        const message = errors.value.fields[f.name];
        return f.kind === 'boolean' ? (
          <Fragment key={f.name}>
            <label class="check">
              <input type="checkbox" id={fieldId} name={f.name} {...invalidProps(fieldId, message)} /> {f.label}
            </label>
            <FieldError id={fieldId} message={message} />
          </Fragment>
        ) : (
          <Fragment key={f.name}>
            <label for={fieldId}>
              {f.label}
              {f.optional && <span class="type"> (optional)</span>}
            </label>
            {f.secret ? (
              <input id={fieldId} name={f.name} type="password" autocomplete="off" required={!f.optional} {...invalidProps(fieldId, message)} />
            ) : (
              <input id={fieldId} name={f.name} autocomplete="off" required={!f.optional} placeholder={f.placeholder} {...invalidProps(fieldId, message)} />
            )}
            <FieldError id={fieldId} message={message} />
          </Fragment>
        );
      })}
      <button type="submit" disabled={busy.value}>
        {busy.value ? 'Checking…' : submit}
      </button>
    </form>
  );
}
