import { api, messageOf } from './api.js';
import { session } from './session.js';

/** Looks up the session of the cookie, if any (after a reload). */
export async function loadSession(): Promise<void> {
  const { data } = await api.GET('/api/sessions/current');
  session.value = data?.session ?? null;
}

/** Why a sign-in was refused: the API's words, and whether it only lacks the two-factor code. */
export interface SignInRefusal {
  message: string;
  codeNeeded: boolean;
}

/** Exchanges the key, or the e-mail and password (and code), for the session cookie; none is kept in the page. */
export async function signIn(credentials: { key: string } | { email: string; password: string; code?: string }): Promise<SignInRefusal | null> {
  const { data, error } = await api.POST('/api/sessions', { body: credentials });
  if (error) return { message: messageOf(error), codeNeeded: (error as { error?: { code?: string } }).error?.code === 'two_factor_required' };
  session.value = data.session;
  return null;
}

export async function signOut(): Promise<void> {
  await api.DELETE('/api/sessions');
  session.value = null;
}

/** A 401 from any request: the session ended (revoked key, idle); the page goes back to sign-in. */
export function endedSession(): void {
  session.value = null;
}
