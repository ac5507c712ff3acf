import type { TestServer } from './test-server.js';

/** A person's session: the cookie and CSRF token to send back. */
export interface Signed {
  cookie: string;
  csrf: string;
  userId: string;
}

export const PASSWORD = 'a long enough password';

/** Signing people in on `s`, and inviting new ones with its key. */
export function peopleSessions(s: TestServer) {
  async function signIn(email: string, password: string, code?: string): Promise<Signed> {
    const r = await s.call('POST', '/api/sessions', { key: null, body: { email, password, ...(code ? { code } : {}) } });
    if (r.status !== 200) throw new Error(`sign-in: ${r.status} ${JSON.stringify(r.body)}`);
    return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: r.body.session.csrfToken as string, userId: r.body.session.userId as string };
  }

  /** The options of `s.call` for a request made in `who`'s session. */
  const as = (who: Signed, body?: unknown) => ({ key: null, headers: { cookie: who.cookie, 'x-csrf-token': who.csrf }, ...(body === undefined ? {} : { body }) });

  /** Invites `email` with the key and accepts the invitation: the new person, signed in. */
  async function invited(email: string, role: string, projects: { projectId: string; role: string }[] = []): Promise<Signed> {
    const invitation = await s.call('POST', '/api/invitations', { body: { email, role, projects } });
    if (invitation.status !== 200) throw new Error(`invite: ${invitation.status} ${JSON.stringify(invitation.body)}`);
    const token = new URL(invitation.body.url).pathname.split('/').pop()!;
    const accepted = await s.call('POST', `/api/invitations/${token}/accept`, { key: null, body: { name: email.split('@')[0], password: PASSWORD } });
    if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
    return signIn(email, PASSWORD);
  }

  return { signIn, as, invited };
}
