import type Router from '@koa/router';
import type { Context } from 'koa';
import { hashApiKeySecret } from '../../../commands/api-key/secret.js';
import type { Slipway } from '../../slipway.js';
import { principalOf } from '../auth.js';
import type { PersonPrincipalCache, Principal, PrincipalCache } from '../principals.js';
import type { People } from '../../people/people.js';
import { findUser } from '../../../projections/people-queries.js';

/** What a person's sign-in needs: their password check, and their rights now. */
export interface SignIn {
  directory: People;
  principals: PersonPrincipalCache;
}
import { clientAddressOf } from '../client-address.js';
import { sessionsApi } from '../contract/sessions.js';
import { route } from '../contract/endpoint.js';
import { HttpError, unauthorized } from '../errors.js';
import type { KeyFailureLimiter } from '../key-failure-limiter.js';
import { clearSessionCookie, setSessionCookie, type SessionAuth } from '../session-auth.js';
import { parseInput } from '../validation.js';

const present = (principal: Principal, name: string | null, csrfToken: string, settings: { sessionIdleMinutes: number; sessionMaxHours: number }) => ({
  keyId: principal.keyId,
  userId: principal.userId,
  role: principal.role,
  name,
  access: principal.access,
  projectIds: principal.projectIds === null ? null : [...principal.projectIds],
  projectRoles: principal.projectRoles && Object.fromEntries(principal.projectRoles),
  csrfToken,
  idleMinutes: settings.sessionIdleMinutes,
  maxHours: settings.sessionMaxHours,
  mustSetUpTwoFactor: principal.mustSetUpTwoFactor,
});

/** Where a sign-in comes from, for the person's list of their sessions. */
export const originOf = (ctx: Context) => ({ device: ctx.get('user-agent') || 'unknown', address: clientAddressOf(ctx) });

async function nameOf(app: Slipway, people: People, userId: string): Promise<string | null> {
  const row = await findUser(app.db, userId);
  return row ? (await people.view(row)).name : null;
}

/**
 * `POST /api/sessions`: no key in the header, the key or the e-mail and password in the body; unknown keys
 * and failed passwords count toward the address's limit like any other.
 */
export function signInRoutes(router: Router, app: Slipway, keys: PrincipalCache, failures: KeyFailureLimiter, sessions: SessionAuth, people: SignIn) {
  route(router, sessionsApi.create, async (ctx: Context) => {
    const body = parseInput(sessionsApi.create.body, ctx.request.body ?? {});
    if ('email' in body) {
      const userId = await people.directory.signIn(body.email, body.password, clientAddressOf(ctx));
      const principal = userId && (await people.principals.find(userId));
      if (!userId || !principal) {
        await failures.passwordFailed(clientAddressOf(ctx));
        throw unauthorized('unknown e-mail or wrong password');
      }
      const second = await people.directory.secondFactor(userId, body.email, body.code, clientAddressOf(ctx));
      if (second === 'required') throw new HttpError(401, 'two_factor_required', 'this account signs in with a code of its authenticator app: send it as code (or a recovery code)');
      if (second === 'wrong') {
        await failures.passwordFailed(clientAddressOf(ctx));
        throw unauthorized('wrong or already used two-factor code');
      }
      const opened = await sessions.store.open({ userId }, originOf(ctx));
      setSessionCookie(ctx, opened.token);
      ctx.body = { session: present(principal, await nameOf(app, people.directory, userId), opened.csrfToken, await app.settings()) };
      return;
    }
    const { key } = body;
    const principal = await keys.find(key);
    if (!principal) {
      await failures.failed(clientAddressOf(ctx), key);
      throw unauthorized('unknown or revoked API key');
    }
    const opened = await sessions.store.open({ keyHash: hashApiKeySecret(key) }, originOf(ctx));
    setSessionCookie(ctx, opened.token);
    ctx.body = { session: present(principal, null, opened.csrfToken, await app.settings()) };
  });
}

/** The session of the request's cookie: what it may do, and sign-out. */
export function sessionRoutes(router: Router, app: Slipway, sessions: SessionAuth, people: People) {
  const sessionOf = (ctx: Context) => ctx.state.session as { token: string; csrfToken: string } | undefined;

  route(router, sessionsApi.current, async (ctx) => {
    const session = sessionOf(ctx);
    if (!session) throw unauthorized('no session: this request was made with an API key, not the session cookie');
    const principal = principalOf(ctx);
    ctx.body = { session: present(principal, principal.userId ? await nameOf(app, people, principal.userId) : null, session.csrfToken, await app.settings()) };
  });

  route(router, sessionsApi.delete, async (ctx) => {
    const session = sessionOf(ctx);
    if (session) await sessions.store.close(session.token);
    clearSessionCookie(ctx);
    ctx.body = { ok: true };
  });
}
