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
  csrfToken: string;
  idleMinutes: number;
}

/** The signed-in session; null before sign-in or after it ended. `undefined` while it is being looked up. */
export const session = signal<Session | null | undefined>(undefined);
export const csrfToken = computed(() => session.value?.csrfToken ?? null);
export const canWrite = computed(() => session.value?.access === 'write');
