import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api.js';

/** The callback's `?sso=` reasons, in the page's own words: a link cannot make the page say anything else. */
const REFUSALS: Record<string, string> = {
  not_configured: 'Single sign-on is not set up on this installation.',
  expired: 'That sign-in took too long or began in another browser: try again.',
  denied: 'The provider did not sign you in.',
  invalid: 'The provider’s answer failed a check: try again.',
  provider: 'The provider could not be reached: try again later, or sign in with your e-mail.',
  email: 'Your provider account has no verified e-mail address.',
  domain: 'Your e-mail’s domain may not sign in here.',
  no_role: 'Your account has no access to this installation: ask an owner to invite you.',
  removed: 'Your account on this installation was removed.',
  failed: 'Single sign-on failed: try again.',
};

/** Why the last single sign-on was refused, taken off the address so a reload does not say it again. */
function takeRefusal(): string | null {
  const url = new URL(location.href);
  const reason = url.searchParams.get('sso');
  if (reason === null) return null;
  url.searchParams.delete('sso');
  history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
  return REFUSALS[reason] ?? REFUSALS.failed!;
}

/** "Sign in with <provider>" when single sign-on is set up, and why it was refused when it was. */
export function SingleSignOn() {
  const name = useSignal<string | null>(null);
  const refusal = useSignal<string | null>(null);
  useEffect(() => {
    refusal.value = takeRefusal();
    void api.GET('/api/auth/oidc').then(({ data }) => {
      name.value = data?.enabled ? data.name : null;
    });
  }, []);
  const next = `${location.pathname}${location.search}`;
  return (
    <>
      {refusal.value && (
        <p class="error" role="alert">
          {refusal.value}
        </p>
      )}
      {name.value && (
        <div class="sign-in-sso">
          <a class="button btn-primary" href={`/api/auth/oidc/start?next=${encodeURIComponent(next)}`}>
            Sign in with {name.value}
          </a>
          <p class="sign-in-or">or with your e-mail</p>
        </div>
      )}
    </>
  );
}
