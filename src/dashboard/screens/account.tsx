import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, messageOf, type GetAnswer } from '../api.js';
import { MySessions } from '../components/account/my-sessions.js';
import { PersonalKeys } from '../components/account/personal-keys.js';
import { Profile } from '../components/account/profile.js';
import { TwoFactor } from '../components/account/two-factor.js';
import { RoleBadge } from '../components/people/role-badge.js';
import { ErrorNote } from '../components/error-note.js';
import { EmptyState } from '../components/ui/empty-state.js';
import { Skeleton } from '../components/ui/skeleton.js';
import { useLiveReload } from '../live-reload.js';
import { session } from '../session.js';
import '../styles/people.css';

type Me = GetAnswer<'/api/users/me'>['user'];

/** My account (`/account`): name, password, two factors, personal keys, sessions. A person's only. */
export function AccountScreen() {
  const me = useSignal<Me | null>(null);
  const error = useSignal<string | null>(null);
  const userId = session.value?.userId ?? null;
  const load = async () => {
    if (!userId) return;
    const { data, error: failed } = await api.GET('/api/users/me');
    error.value = failed ? messageOf(failed) : null;
    if (data) me.value = data.user;
  };
  useEffect(() => {
    void load();
  }, [userId]);
  // Two factors turned on in another tab, a role changed by an owner: this page follows.
  useLiveReload((change) => change.streamId === `user-${userId}`, load);

  if (!userId)
    return (
      <section>
        <EmptyState title="This is an API key’s session">
          <p>My account is for a person signed in with their e-mail and password.</p>
        </EmptyState>
      </section>
    );
  const m = me.value;
  if (!m)
    return (
      <section>
        <ErrorNote message={error.value} />
        <Skeleton />
      </section>
    );
  return (
    <section class="account-page">
      <div class="page-header">
        <div>
          <h1>My account</h1>
          <p>
            {m.email} · <RoleBadge role={m.role} />
          </p>
        </div>
      </div>
      <Profile key={m.name} name={m.name} />
      <TwoFactor on={m.twoFactor} reload={load} />
      <PersonalKeys />
      <MySessions />
    </section>
  );
}
