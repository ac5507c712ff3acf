import { useSignal } from '@preact/signals';
import { api } from '../api.js';
import { FieldError, invalidProps } from '../components/field-error.js';
import { focusOnMount } from '../focus-on-mount.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../form-errors.js';
import { endedSession, signIn } from '../session-actions.js';
import { ownerFormOpen, ownerNeeded } from '../owner-needed.js';
import { SignInCard } from './sign-in.js';

const MIN_PASSWORD = 12;
const fieldOf = fieldsByPath({ name: 'name', email: 'email', password: 'password' });

/**
 * The first owner's form, opened from the projects screen's notice while the installation has no owner and an
 * all-project write key (the bootstrap key) is signed in: it makes the first person, the owner, and signs them in
 * in place of the key.
 */
export function FirstOwnerScreen() {
  const name = useSignal('');
  const email = useSignal('');
  const password = useSignal('');
  const errors = useSignal(NO_ERRORS);
  const busy = useSignal(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    busy.value = true;
    const person = { email: email.value.trim(), password: password.value };
    const { error } = await api.POST('/api/users/owner', { body: { ...person, name: name.value.trim() } });
    if (error) {
      busy.value = false;
      errors.value = formErrors(error, fieldOf);
      return focusFirstInvalid(form);
    }
    // The key's session ends: from now on the page is the owner's.
    await api.DELETE('/api/sessions');
    const refused = await signIn(person);
    busy.value = false;
    ownerNeeded.value = false;
    ownerFormOpen.value = false;
    // Hardly ever (the sign-in limit): the sign-in page then takes the new e-mail and password.
    if (refused) endedSession();
  };
  return (
    <SignInCard title="Make the first owner" lead="This installation has nobody yet. The owner signs in with an e-mail and password and invites everyone else.">
      <form onSubmit={submit} aria-label="Make the first owner">
        <label for="owner-name">Your name</label>
        <input id="owner-name" autocomplete="name" required maxLength={100} ref={focusOnMount} value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} {...invalidProps('owner-name', errors.value.fields.name)} />
        <FieldError id="owner-name" message={errors.value.fields.name} />
        <label for="owner-email">E-mail</label>
        <input id="owner-email" type="email" autocomplete="username" required value={email.value} onInput={(e) => (email.value = e.currentTarget.value)} {...invalidProps('owner-email', errors.value.fields.email)} />
        <FieldError id="owner-email" message={errors.value.fields.email} />
        <label for="owner-password">Password</label>
        <input
          id="owner-password"
          type="password"
          autocomplete="new-password"
          required
          minLength={MIN_PASSWORD}
          value={password.value}
          onInput={(e) => (password.value = e.currentTarget.value)}
          {...invalidProps('owner-password', errors.value.fields.password)}
          aria-describedby={errors.value.fields.password ? 'owner-password-error' : 'owner-password-help'}
        />
        <p id="owner-password-help" class="help">
          At least {MIN_PASSWORD} characters.
        </p>
        <FieldError id="owner-password" message={errors.value.fields.password} />
        {errors.value.general && (
          <p class="error" role="alert">
            {errors.value.general}
          </p>
        )}
        <button type="submit" disabled={busy.value}>
          {busy.value ? 'Making the owner…' : 'Make the owner and sign in'}
        </button>
        <button type="button" class="btn-ghost" onClick={() => (ownerFormOpen.value = false)}>
          Not now: back to the dashboard
        </button>
      </form>
    </SignInCard>
  );
}
