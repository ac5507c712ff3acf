import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { PersonPrincipalCache, Principal, PrincipalCache } from './principals.js';
import { clientAddressOf } from './client-address.js';
import { forbidden, unauthorized } from './errors.js';
import type { KeyFailureLimiter } from './key-failure-limiter.js';
import type { FoundSession, SessionLifetime, SessionStore } from './session-store.js';

/**
 * The `__Host-` prefix makes browsers take the cookie only when it is `Secure`, has `Path=/` and no `Domain`:
 * a page on a sibling subdomain (a deployed app on `*.example.com`) cannot plant a session of its own choosing.
 */
export const SESSION_COOKIE = '__Host-slipway_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const sessionTokenOf = (ctx: Context): string | undefined => ctx.cookies.get(SESSION_COOKIE) || undefined;

/** `Secure` always: browsers treat http://localhost as secure, and anywhere else the dashboard needs HTTPS. */
export function setSessionCookie(ctx: Context, token: string) {
  ctx.append('Set-Cookie', `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; Secure; SameSite=Strict`);
}

export function clearSessionCookie(ctx: Context) {
  ctx.append('Set-Cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0`);
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The principal of a request that carries the session cookie instead of a key. */
export class SessionAuth {
  constructor(
    readonly store: SessionStore,
    private readonly keys: PrincipalCache,
    private readonly people: PersonPrincipalCache,
    private readonly failures: KeyFailureLimiter,
    private readonly lifetime: () => Promise<SessionLifetime>,
  ) {}

  /** The principal of a session that still stands, its key or person too, without counting this as use; null once it ended. */
  async standing(token: string): Promise<Principal | null> {
    const found = await this.store.peek(token, await this.lifetime());
    return found && this.principalOfSession(found);
  }

  /** The rights of the session's key or person now: a revoked key or a removed person ends it. */
  private principalOfSession(found: FoundSession): Promise<Principal | null> {
    if (found.userId !== null) return this.people.find(found.userId);
    return found.keyHash !== null ? this.keys.findByHash(found.keyHash) : Promise.resolve(null);
  }

  async principalOf(ctx: Context): Promise<Principal> {
    const token = sessionTokenOf(ctx)!;
    const session = await this.store.touch(token, await this.lifetime());
    // A token no session ever had is guessed: it counts like an unknown key. An ended session does not.
    if (session === null) await this.failures.sessionFailed(clientAddressOf(ctx));
    const found = session === 'ended' ? null : session;
    const principal = found && (await this.principalOfSession(found));
    if (!found || !principal) {
      // Its key was revoked, or its person removed.
      if (found) await this.store.close(token);
      clearSessionCookie(ctx);
      throw unauthorized('the session has ended (signed out, idle too long, past its lifetime, replaced by newer sign-ins, its key revoked or its person removed): sign in again');
    }
    // Another site can make the browser send the cookie, never this header: a write needs both.
    if (!SAFE_METHODS.has(ctx.method) && !sameText(ctx.get('x-csrf-token'), found.csrfToken)) {
      throw forbidden('a write through the session cookie needs its X-CSRF-Token header');
    }
    ctx.state.session = { token, csrfToken: found.csrfToken };
    return principal;
  }
}
