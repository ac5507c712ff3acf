import type Router from '@koa/router';
import type { Context } from 'koa';
import { configureOidc, removeOidc } from '../../../commands/settings/oidc-handlers.js';
import { findOidcSettings, type OidcSettingsRow } from '../../../projections/settings-oidc-queries.js';
import { landingPath, OidcRefused } from '../../people/oidc-claims.js';
import { discoverProvider, OidcDiscoveryError } from '../../people/oidc-client.js';
import { CredentialStore } from '../../people/credentials.js';
import { IdentityLinks } from '../../people/oidc-identities.js';
import { OidcSignIn } from '../../people/oidc-sign-in.js';
import type { People } from '../../people/people.js';
import { ForbiddenDestinationError } from '../../outbound/forbidden-destination.js';
import type { Slipway } from '../../slipway.js';
import { apiBaseUrl } from '../api-base-url.js';
import { principalOf, requireInstallation, writerOf } from '../auth.js';
import { clientAddressOf } from '../client-address.js';
import { oidcApi } from '../contract/oidc.js';
import { route } from '../contract/endpoint.js';
import { HttpError } from '../errors.js';
import type { PersonPrincipalCache } from '../principals.js';
import { requestContext } from '../request-context.js';
import { correlationIdOf } from '../request-id.js';
import { setSessionCookie, type SessionAuth } from '../session-auth.js';
import { parseInput } from '../validation.js';
import { originOf } from './sessions.js';

/** The pending sign-in's key: `__Host-` (this origin only, `Path=/` as the prefix requires), gone after 10 minutes. */
const PENDING_COOKIE = '__Host-slipway_oidc';
const WHAT = 'changing the installation settings';

const present = (row: OidcSettingsRow) => ({
  issuer: row.issuer,
  clientId: row.client_id,
  clientSecretSet: true as const,
  name: row.name,
  allowedDomains: row.allowed_domains,
  defaultRole: row.default_role,
  groupsClaim: row.groups_claim,
  groupRoles: row.group_roles,
  configuredAt: new Date(row.configured_at).toISOString(),
});

/** `GET|PUT|DELETE /api/settings/oidc`: the installation's owners (or an all-project write key). */
export function oidcSettingsRoutes(router: Router, app: Slipway) {
  route(router, oidcApi.get, async (ctx) => {
    requireInstallation(principalOf(ctx), 'reading the single sign-on settings');
    const row = await findOidcSettings(app.db);
    ctx.body = { oidc: row && present(row) };
  });

  route(router, oidcApi.put, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, WHAT);
    const body = parseInput(oidcApi.put.body, ctx.request.body ?? {});
    // As given: the provider's metadata must name exactly this issuer (some end with a slash, some do not).
    const { issuer } = body;
    // Saved only once the provider answered as one: a typo is a 502 now, not a broken sign-in page later.
    try {
      await discoverProvider({ issuer, clientId: body.clientId, clientSecret: body.clientSecret }, app.outbound);
    } catch (error) {
      if (error instanceof ForbiddenDestinationError) throw error.at('issuer');
      if (error instanceof OidcDiscoveryError) throw new HttpError(502, 'oidc_discovery_failed', error.message);
      throw error;
    }
    const configuration = {
      issuer,
      clientId: body.clientId,
      clientSecret: body.clientSecret,
      name: body.name ?? new URL(issuer).host,
      allowedDomains: body.allowedDomains ?? [],
      defaultRole: body.defaultRole ?? null,
      groupsClaim: body.groupsClaim ?? null,
      groupRoles: body.groupRoles ?? {},
    };
    const { position } = await configureOidc(requestContext(app, ctx, principal), configuration);
    await app.settle(position);
    ctx.body = { oidc: present((await findOidcSettings(app.db))!) };
  });

  route(router, oidcApi.delete, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, WHAT);
    const { position } = await removeOidc(requestContext(app, ctx, principal));
    await app.settle(position);
    ctx.body = { ok: true };
  });
}

/** Back to the sign-in page, which says why in a sentence of its own (never the provider's words). */
function refuse(ctx: Context, reason: string) {
  ctx.redirect(`/?sso=${encodeURIComponent(reason)}`);
}

const pendingCookie = (key: string, maxAge: number) => `${PENDING_COOKIE}=${key}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${maxAge}`;

/** What signing a person in needs beyond the round trip: their rights now, and the session store. */
export interface OidcSessions {
  principals: PersonPrincipalCache;
  sessions: SessionAuth;
  people: People;
}

/** The sign-in page's button, and the browser's round trip through the provider: no key. */
export function oidcSignInRoutes(router: Router, app: Slipway, { principals, sessions, people }: OidcSessions) {
  const signIn = new OidcSignIn({
    directory: { db: app.db, keyring: app.keyring, people, credentials: new CredentialStore(app.db), links: new IdentityLinks(app.db, app.keyring) },
    outbound: app.outbound,
    command: (correlationId) => app.commandContext('system:oidc', { correlationId, idempotencyKey: null }),
  });
  route(router, oidcApi.status, async (ctx) => {
    const row = await findOidcSettings(app.db);
    ctx.body = { enabled: row !== null, name: row?.name ?? null };
  });

  route(router, oidcApi.start, async (ctx) => {
    const next = landingPath(ctx.query.next);
    try {
      const { url, key } = await signIn.start(correlationIdOf(ctx), `${await apiBaseUrl(app, ctx)}/api/auth/oidc/callback`, next, clientAddressOf(ctx));
      ctx.append('Set-Cookie', pendingCookie(key, 600));
      ctx.redirect(url.href);
    } catch (error) {
      if (error instanceof OidcRefused) return refuse(ctx, error.reason);
      // Metadata that discovery took but a request cannot be built from: the provider's fault, not a 500.
      app.log.error('single sign-on could not start', { error: String(error) });
      refuse(ctx, 'provider');
    }
  });

  route(router, oidcApi.callback, async (ctx) => {
    ctx.append('Set-Cookie', pendingCookie('', 0));
    try {
      const query = new URLSearchParams(ctx.querystring);
      const { userId, next, position } = await signIn.finish(correlationIdOf(ctx), ctx.cookies.get(PENDING_COOKIE), query);
      await app.settle(position);
      // The provider stands for the second factor: a person with two factors on is not asked for a code here.
      if (!(await principals.find(userId))) throw new OidcRefused('removed');
      const opened = await sessions.store.open({ userId }, originOf(ctx));
      setSessionCookie(ctx, opened.token);
      ctx.redirect(next);
    } catch (error) {
      if (error instanceof OidcRefused) return refuse(ctx, error.reason);
      app.log.error('single sign-on failed', { error: String(error) });
      refuse(ctx, 'failed');
    }
  });
}
