import { useSignal } from '@preact/signals';
import { api } from '../../api.js';
import { fieldsByPath, focusFirstInvalid, formErrors, NO_ERRORS } from '../../form-errors.js';
import { ErrorNote } from '../error-note.js';
import { FieldError, invalidProps } from '../field-error.js';
import { Badge } from '../ui/badge.js';
import { toast } from '../ui/toast.js';
import { QrCode } from './qr-code.js';
import { RecoveryCodes } from './recovery-codes.js';

const fieldOf = fieldsByPath({ code: 'code', password: 'password' });

/**
 * Two factors: on (a QR code to scan, a code to confirm, recovery codes shown once) or off (the password again).
 * `onDone`: the recovery codes were put away.
 */
export function TwoFactor({ on, reload, onDone }: { on: boolean; reload: () => Promise<void>; onDone?: () => void }) {
  const setup = useSignal<{ secret: string; otpauthUrl: string } | null>(null);
  const codes = useSignal<string[] | null>(null);
  const code = useSignal('');
  const password = useSignal('');
  const errors = useSignal(NO_ERRORS);

  const start = async () => {
    const { data, error } = await api.POST('/api/users/me/totp');
    errors.value = error ? formErrors(error, fieldOf) : NO_ERRORS;
    if (data) setup.value = data;
  };
  const confirm = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const { data, error } = await api.POST('/api/users/me/totp/confirm', { body: { code: code.value.replace(/\s/g, '') } });
    if (error) {
      errors.value = formErrors(error, fieldOf);
      return focusFirstInvalid(form);
    }
    errors.value = NO_ERRORS;
    setup.value = null;
    code.value = '';
    codes.value = data.recoveryCodes;
    await reload();
  };
  const turnOff = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const { error } = await api.POST('/api/users/me/totp/disable', { body: { password: password.value } });
    password.value = '';
    if (error) {
      errors.value = formErrors(error, fieldOf);
      return focusFirstInvalid(form);
    }
    errors.value = NO_ERRORS;
    toast('Two factors are off: sign-in asks for your password only.');
    await reload();
  };

  return (
    <section aria-labelledby="two-factor">
      <h2 id="two-factor">
        Two factors <Badge status={on ? 'on' : 'off'} tone={on ? 'success' : 'neutral'} />
      </h2>
      <ErrorNote message={errors.value.general} />
      {codes.value ? (
        <RecoveryCodes
          codes={codes.value}
          done={() => {
            codes.value = null;
            onDone?.();
          }}
        />
      ) : setup.value ? (
        <div class="totp-setup">
          <QrCode text={setup.value.otpauthUrl} label="QR code for your authenticator app" />
          <div>
            <p>Scan this code with your authenticator app, or type the secret into it:</p>
            <p>
              <code class="totp-secret">{setup.value.secret}</code>
            </p>
            <form class="settings aligned" aria-label="Confirm two factors" onSubmit={confirm}>
              <label for="totp-code">Code from the app</label>
              <input id="totp-code" autocomplete="one-time-code" inputMode="numeric" required maxLength={64} value={code.value} onInput={(e) => (code.value = e.currentTarget.value)} {...invalidProps('totp-code', errors.value.fields.code)} />
              <FieldError id="totp-code" message={errors.value.fields.code} />
              <p class="link-row">
                <button type="submit">Turn on</button>
                <button type="button" class="btn-ghost" onClick={() => (setup.value = null)}>
                  Cancel
                </button>
              </p>
            </form>
          </div>
        </div>
      ) : on ? (
        <form class="settings aligned" aria-label="Turn two factors off" onSubmit={turnOff}>
          <p class="muted">Sign-in asks for a code of your authenticator app after your password.</p>
          <label for="totp-off-password">Your password</label>
          <input id="totp-off-password" type="password" autocomplete="current-password" required value={password.value} onInput={(e) => (password.value = e.currentTarget.value)} {...invalidProps('totp-off-password', errors.value.fields.password)} />
          <FieldError id="totp-off-password" message={errors.value.fields.password} />
          <button type="submit" class="danger">
            Turn two factors off
          </button>
        </form>
      ) : (
        <>
          <p class="muted">With two factors on, sign-in asks for a code of an authenticator app (on your phone) after your password.</p>
          <button type="button" onClick={() => void start()}>
            Turn on two factors
          </button>
        </>
      )}
    </section>
  );
}
