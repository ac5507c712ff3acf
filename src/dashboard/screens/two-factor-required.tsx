import { useSignal } from '@preact/signals';
import { TwoFactor } from '../components/account/two-factor.js';
import { loadSession, signOut } from '../session-actions.js';
import { SignInCard } from './sign-in.js';

/**
 * The one screen of a person the installation requires two factors of (`requireTwoFactor`) before they turn them
 * on: the server answers nothing else for them. Once the recovery codes are put away, the session is read again.
 */
export function TwoFactorRequiredScreen() {
  const on = useSignal(false);
  return (
    <SignInCard title="Turn on two factors" lead="This installation asks everyone for a code of an authenticator app at sign-in. Turn two factors on to go on.">
      <TwoFactor on={on.value} reload={async () => void (on.value = true)} onDone={() => void loadSession()} />
      <p class="link-row">
        <button type="button" class="btn-ghost" onClick={() => void signOut()}>
          Sign out
        </button>
      </p>
    </SignInCard>
  );
}
