import { useSignal } from '@preact/signals';
import { api, messageOf } from '../api.js';
import { focusOnMount } from '../focus-on-mount.js';
import { loadSession } from '../session-actions.js';
import { SignInCard } from './sign-in.js';

const MIN_PASSWORD = 12;

/** The token of an invitation link (`/invitations/<token>`), or null on any other page. */
export const invitationTokenOf = (path: string): string | null => /^\/invitations\/([A-Za-z0-9_-]{20,100})$/.exec(path)?.[1] ?? null;

/**
 * The page an invitation's link opens: the person names themselves and chooses a password, and is signed in.
 * The token stays in the address only until it is used: then the page goes to the projects.
 */
export function AcceptInvitationScreen({ token }: { token: string }) {
  const name = useSignal('');
  const password = useSignal('');
  const again = useSignal('');
  const error = useSignal<string | null>(null);
  const busy = useSignal(false);
  const mismatch = again.value !== '' && again.value !== password.value;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (password.value !== again.value) return void (error.value = 'The two passwords differ.');
    busy.value = true;
    const { error: failed } = await api.POST('/api/invitations/{token}/accept', { params: { path: { token } }, body: { name: name.value.trim(), password: password.value } });
    busy.value = false;
    if (failed) return void (error.value = messageOf(failed));
    history.replaceState(null, '', '/');
    await loadSession();
  };
  return (
    <SignInCard title="Join Slipway" lead="You were invited to this installation. Choose the name others will see and a password.">
      <form onSubmit={submit} aria-label="Accept the invitation">
        <label for="invite-name">Your name</label>
        <input id="invite-name" autocomplete="name" required maxLength={100} ref={focusOnMount} value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
        <label for="invite-password">Password</label>
        <input
          id="invite-password"
          type="password"
          autocomplete="new-password"
          required
          minLength={MIN_PASSWORD}
          aria-describedby="invite-password-help"
          value={password.value}
          onInput={(e) => (password.value = e.currentTarget.value)}
        />
        <p id="invite-password-help" class="help">
          At least {MIN_PASSWORD} characters.
        </p>
        <label for="invite-password-again">Password, again</label>
        <input
          id="invite-password-again"
          type="password"
          autocomplete="new-password"
          required
          aria-invalid={mismatch}
          value={again.value}
          onInput={(e) => (again.value = e.currentTarget.value)}
        />
        {error.value && (
          <p class="error" role="alert">
            {error.value}
          </p>
        )}
        <button type="submit" disabled={busy.value}>
          {busy.value ? 'Joining…' : 'Join'}
        </button>
      </form>
    </SignInCard>
  );
}
