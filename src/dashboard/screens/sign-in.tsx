import { useSignal } from '@preact/signals';
import { focusOnMount } from '../focus-on-mount.js';
import { signIn } from '../session-actions.js';
import { LogoIcon } from '../components/ui/icons.js';

export function SignInScreen() {
  const key = useSignal('');
  const error = useSignal<string | null>(null);
  const busy = useSignal(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    busy.value = true;
    error.value = await signIn(key.value.trim());
    busy.value = false;
    key.value = '';
  };
  return (
    <main class="sign-in">
      <div class="sign-in-card">
        <p class="brand">
          <span class="brand-mark">
            <LogoIcon />
          </span>
          Slipway
        </p>
        <h1>Sign in</h1>
        <p>Use an API key of this installation.</p>
        <form onSubmit={submit} aria-describedby="sign-in-help">
          <label for="api-key">API key</label>
          <input id="api-key" type="password" autocomplete="off" placeholder="slw_…" required ref={focusOnMount} value={key.value} onInput={(e) => (key.value = e.currentTarget.value)} />
          <p id="sign-in-help" class="help">
            The key is exchanged for a session cookie; this page does not keep it.
          </p>
          {error.value && (
            <p class="error" role="alert">
              {error.value}
            </p>
          )}
          <button type="submit" disabled={busy.value}>
            {busy.value ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </div>
    </main>
  );
}
