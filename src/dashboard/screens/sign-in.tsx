import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { focusOnMount } from '../focus-on-mount.js';
import { signIn } from '../session-actions.js';
import { LogoIcon } from '../components/ui/icons.js';
import { SingleSignOn } from './sign-in-sso.js';

/** The quiet page around a sign-in or an invitation: the brand, a title, one card. */
export function SignInCard({ title, lead, children }: { title: string; lead: string; children: ComponentChildren }) {
  return (
    <main class="sign-in">
      <div class="sign-in-card">
        <p class="brand">
          <span class="brand-mark">
            <LogoIcon />
          </span>
          Slipway
        </p>
        <h1>{title}</h1>
        <p>{lead}</p>
        {children}
      </div>
    </main>
  );
}

function Refusal({ message }: { message: string | null }) {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}

/** A person signs in with their e-mail and password; programs' API keys are kept for those who have one. */
export function SignInScreen() {
  const email = useSignal('');
  const password = useSignal('');
  const code = useSignal('');
  /** The account asked for its two-factor code: the form shows its field, and keeps the password until then. */
  const codeNeeded = useSignal(false);
  const key = useSignal('');
  const error = useSignal<{ form: 'person' | 'key'; message: string } | null>(null);
  const busy = useSignal(false);
  const submit = (form: 'person' | 'key') => async (event: Event) => {
    event.preventDefault();
    busy.value = true;
    const person = { email: email.value.trim(), password: password.value, ...(codeNeeded.value ? { code: code.value.trim() } : {}) };
    const refusal = await signIn(form === 'person' ? person : { key: key.value.trim() });
    busy.value = false;
    key.value = '';
    code.value = '';
    if (form === 'person' && refusal?.codeNeeded) {
      codeNeeded.value = true;
      error.value = null;
      return;
    }
    error.value = refusal === null ? null : { form, message: refusal.message };
    password.value = '';
    codeNeeded.value = false;
  };
  const refusal = (form: 'person' | 'key') => (error.value?.form === form ? error.value.message : null);
  return (
    <SignInCard title="Sign in" lead="With your e-mail and password, or an API key of this installation.">
      <SingleSignOn />
      <form onSubmit={submit('person')} aria-label="Sign in with your e-mail">
        <label for="sign-in-email">E-mail</label>
        <input id="sign-in-email" type="email" autocomplete="username" required ref={focusOnMount} value={email.value} onInput={(e) => (email.value = e.currentTarget.value)} />
        <label for="sign-in-password">Password</label>
        <input id="sign-in-password" type="password" autocomplete="current-password" required value={password.value} onInput={(e) => (password.value = e.currentTarget.value)} />
        {codeNeeded.value && (
          <>
            <label for="sign-in-code">Code from your authenticator app</label>
            <input
              id="sign-in-code"
              autocomplete="one-time-code"
              inputMode="numeric"
              required
              aria-describedby="sign-in-code-help"
              ref={focusOnMount}
              value={code.value}
              onInput={(e) => (code.value = e.currentTarget.value)}
            />
            <p id="sign-in-code-help" class="help">
              Or one of your recovery codes.
            </p>
          </>
        )}
        <Refusal message={refusal('person')} />
        <button type="submit" disabled={busy.value}>
          {busy.value ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <details class="sign-in-key" open={error.value?.form === 'key'}>
        <summary>Use an API key</summary>
        <form onSubmit={submit('key')} aria-describedby="sign-in-help" aria-label="Sign in with an API key">
          <label for="api-key">API key</label>
          <input id="api-key" type="password" autocomplete="off" placeholder="slw_…" required value={key.value} onInput={(e) => (key.value = e.currentTarget.value)} />
          <p id="sign-in-help" class="help">
            The key is exchanged for a session cookie; this page does not keep it.
          </p>
          <Refusal message={refusal('key')} />
          <button type="submit" disabled={busy.value}>
            Sign in with the key
          </button>
        </form>
      </details>
    </SignInCard>
  );
}
