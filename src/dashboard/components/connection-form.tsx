import { useSignal } from '@preact/signals';
import { ErrorNote } from './error-note.js';

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
 * service answered with it, so the API's refusal (the service's own words) is shown here.
 */
export function ConnectionForm({ id, label, fields, submit, connect }: { id: string; label: string; fields: ConnectionField[]; submit: string; connect: (body: Record<string, unknown>) => Promise<string | null> }) {
  const error = useSignal<string | null>(null);
  const busy = useSignal(false);
  const send = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const body: Record<string, unknown> = {};
    for (const f of fields) {
      if (f.kind === 'boolean') body[f.name] = data.get(f.name) === 'on';
      else {
        const value = String(data.get(f.name) ?? '').trim();
        if (value) body[f.name] = value;
      }
    }
    busy.value = true;
    error.value = await connect(body);
    busy.value = false;
    if (!error.value) form.reset();
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
      <ErrorNote message={error.value} />
      {fields.map((f) =>
        f.kind === 'boolean' ? (
          <label key={f.name} class="check">
            <input type="checkbox" name={f.name} /> {f.label}
          </label>
        ) : (
          <span key={f.name} class="contents">
            <label for={`${id}-${f.name}`}>
              {f.label}
              {f.optional && <span class="type"> (optional)</span>}
            </label>
            {f.secret ? (
              <input id={`${id}-${f.name}`} name={f.name} type="password" autocomplete="off" required={!f.optional} />
            ) : (
              <input id={`${id}-${f.name}`} name={f.name} autocomplete="off" required={!f.optional} placeholder={f.placeholder} />
            )}
          </span>
        ),
      )}
      <button type="submit" disabled={busy.value}>
        {busy.value ? 'Checking…' : submit}
      </button>
    </form>
  );
}
