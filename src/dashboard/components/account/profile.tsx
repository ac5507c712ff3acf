import { useSignal } from '@preact/signals';
import { api } from '../../api.js';
import { changedFields } from '../../changed-fields.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../../form-errors.js';
import { session } from '../../session.js';
import { ErrorNote } from '../error-note.js';
import { FieldError, invalidProps } from '../field-error.js';
import { toast } from '../ui/toast.js';

const MIN_PASSWORD = 12;
const fieldOf = fieldsByPath({ name: 'name', 'password.current': 'current', 'password.new': 'new', password: 'new' });

/** My name (sent only when changed) and my password (the current one, then the new). My e-mail is in the page's header. */
export function Profile({ name }: { name: string }) {
  const draft = useSignal(name);
  const current = useSignal('');
  const next = useSignal('');
  const errors = useSignal(NO_ERRORS);

  const rename = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const body = changedFields({ name }, { name: draft.value.trim() });
    if (body.name === undefined) return void toast('Nothing changed.', 'info');
    const { data, error } = await api.PATCH('/api/users/me', { body });
    if (error) {
      errors.value = formErrors(error, fieldOf);
      return focusFirstInvalid(form);
    }
    errors.value = NO_ERRORS;
    // The top bar names me: it follows at once.
    if (session.value) session.value = { ...session.value, name: data.user.name };
    toast('Your name was changed.');
  };
  const changePassword = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const { error } = await api.PATCH('/api/users/me', { body: { password: { current: current.value, new: next.value } } });
    current.value = '';
    if (error) {
      errors.value = formErrors(error, fieldOf);
      return focusFirstInvalid(form);
    }
    next.value = '';
    errors.value = NO_ERRORS;
    toast('Your password was changed; your other sessions were ended.');
  };
  const invalid = (field: string, id: string) => invalidProps(id, errors.value.fields[field]);

  return (
    <section aria-labelledby="profile">
      <h2 id="profile">Profile</h2>
      <ErrorNote message={errors.value.general} />
      <form class="settings aligned" aria-label="Your name" onSubmit={rename}>
        <label for="account-name">Name</label>
        <input id="account-name" autocomplete="name" required maxLength={100} value={draft.value} onInput={(e) => (draft.value = e.currentTarget.value)} {...invalid('name', 'account-name')} />
        <FieldError id="account-name" message={errors.value.fields.name} />
        <button type="submit">Save name</button>
      </form>
      <form class="settings aligned password-form" aria-label="Change your password" onSubmit={changePassword}>
        <label for="account-password-current">Current password</label>
        <input
          id="account-password-current"
          type="password"
          autocomplete="current-password"
          required
          value={current.value}
          onInput={(e) => (current.value = e.currentTarget.value)}
          {...invalid('current', 'account-password-current')}
        />
        <FieldError id="account-password-current" message={errors.value.fields.current} />
        <label for="account-password-new">New password</label>
        <input
          id="account-password-new"
          type="password"
          autocomplete="new-password"
          required
          minLength={MIN_PASSWORD}
          value={next.value}
          onInput={(e) => (next.value = e.currentTarget.value)}
          {...invalidProps('account-password-new', errors.value.fields.new)}
          aria-describedby={errors.value.fields.new ? 'account-password-new-error' : 'account-password-help'}
        />
        <p id="account-password-help" class="help">
          At least {MIN_PASSWORD} characters. Your other sessions end when it changes.
        </p>
        <FieldError id="account-password-new" message={errors.value.fields.new} />
        <button type="submit">Change password</button>
      </form>
    </section>
  );
}
