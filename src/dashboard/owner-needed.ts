import { signal } from '@preact/signals';
import { api } from './api.js';
import { session } from './session.js';

/** Whether the installation has no owner yet and this session (an all-project write key) may make one. */
export const ownerNeeded = signal(false);
/** The first owner's form is open (from the notice on the projects screen). */
export const ownerFormOpen = signal(false);

/** Asked once a key's session starts: only an all-project write key may make the first owner (`POST /api/users/owner`). */
export async function checkOwnerNeeded(): Promise<void> {
  const s = session.value;
  ownerFormOpen.value = false;
  if (!s || s.userId !== null || s.access !== 'write' || s.projectIds !== null) return void (ownerNeeded.value = false);
  const { data } = await api.GET('/api/users');
  ownerNeeded.value = Boolean(data && !data.users.some((u) => u.role === 'owner'));
}
