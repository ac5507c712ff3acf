import { computed, signal } from '@preact/signals';

export interface Session {
  /** The key of a key's session; null for a person's. */
  keyId: string | null;
  /** The person of a person's session; null for a key's. */
  userId: string | null;
  role: 'owner' | 'admin' | 'member' | null;
  name: string | null;
  access: 'read' | 'write';
  projectIds: string[] | null;
  /** A member's role in each of their projects; null for owners, admins and keys. */
  projectRoles: Record<string, 'admin' | 'deployer' | 'viewer'> | null;
  csrfToken: string;
  idleMinutes: number;
  /** The installation requires two factors and this person has not turned them on: nothing else answers. */
  mustSetUpTwoFactor: boolean;
}

/** The signed-in session; null before sign-in or after it ended. `undefined` while it is being looked up. */
export const session = signal<Session | null | undefined>(undefined);
export const csrfToken = computed(() => session.value?.csrfToken ?? null);
/** The project the page shows (a project's or a service's), whose role decides what may be changed there. */
export const shownProjectId = signal<string | null>(null);
/** Whether the page's controls that change something are drawn: a write session, and not a viewer of the shown project. */
export const canWrite = computed(() => {
  const s = session.value;
  const shown = shownProjectId.value;
  return s?.access === 'write' && !(shown !== null && s.projectRoles?.[shown] === 'viewer');
});
