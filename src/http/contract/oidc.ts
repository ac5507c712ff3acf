import { z } from 'zod';
import { installationRole } from '../../../commands/user/roles.js';
import { isLoopbackHost } from '../../people/oidc-client.js';
import { hostname } from '../../shared/hostname.js';
import { name, text } from '../validation.js';
import { okBody, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

const oidcBody = z
  .object({
    issuer: text(2048)
      .trim()
      .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))
      .refine((url) => url.startsWith('https://') || isLoopbackHost(new URL(url).hostname), 'must be an https URL (http only on a loopback address)')
      .meta({ description: 'The provider’s issuer URL (its `/.well-known/openid-configuration` is read before anything is saved): https, or http on a loopback address only.' }),
    clientId: text(512).trim().min(1, 'must not be empty'),
    clientSecret: z.string().min(1, 'must not be empty').max(2048).meta({ description: 'Sealed in the log; never shown again.' }),
    name: name(60).optional().meta({ description: 'The sign-in button says “Sign in with <name>” (default: the issuer’s host).' }),
    allowedDomains: z.array(hostname).max(100).optional().meta({ description: 'E-mail domains that may sign in (default: any).' }),
    defaultRole: z.enum(['admin', 'member']).nullable().optional().meta({ description: 'The role of a person signing in for the first time whose groups give none; absent or null: they are refused.' }),
    groupsClaim: text(100).trim().min(1).optional().meta({ description: 'The claim holding the person’s groups (e.g. `groups`).' }),
    groupRoles: z
      .record(text(256).min(1), installationRole)
      .refine((roles) => Object.keys(roles).length <= 100, 'at most 100 groups')
      .optional()
      .meta({ description: 'Group → role (`owner`, `admin` or `member`) for a first sign-in; the highest of the person’s groups wins, before `defaultRole`.' }),
  })
  .strict();
export type OidcBody = z.infer<typeof oidcBody>;

const oidcSettings = z
  .object({
    issuer: z.string(),
    clientId: z.string(),
    clientSecretSet: z.literal(true),
    name: z.string(),
    allowedDomains: z.array(z.string()),
    defaultRole: installationRole.nullable(),
    groupsClaim: z.string().nullable(),
    groupRoles: z.record(z.string(), installationRole),
    configuredAt: timestamp,
  })
  .meta({ id: 'OidcSettings' });

const settingsPath = '/api/settings/oidc';
const refusals =
  'A refusal leads back to the sign-in page with `?sso=<reason>`: `not_configured`, `expired` (no sign-in of this browser pending, or older than 10 minutes), `denied` (the provider said no), `invalid` (the answer failed a check: state, nonce, issuer, audience, signature), `provider` (the provider could not be reached), `email` (no verified e-mail), `domain` (not an allowed domain), `no_role`, `removed`.';

/** Single sign-on with one OpenID provider: its settings (owners), and the browser's round trip through it (no key). */
export const oidcApi = {
  get: endpoint({
    method: 'get',
    path: settingsPath,
    operationId: 'getOidcSettings',
    tag: 'Settings',
    summary: 'The single sign-on settings (never the client secret)',
    access: 'read',
    allProjects: true,
    response: z.object({ oidc: oidcSettings.nullable() }),
  }),
  put: endpoint({
    method: 'put',
    path: settingsPath,
    operationId: 'configureOidc',
    tag: 'Settings',
    summary: 'Set up single sign-on with an OpenID provider; saved only once its discovery document was read',
    description: 'The issuer is reached through the outbound policy (a loopback issuer needs `allowedDestinations`). An issuer that cannot be reached or whose metadata is invalid is refused (502 `oidc_discovery_failed`) and nothing is saved.',
    access: 'write',
    allProjects: true,
    body: oidcBody,
    response: z.object({ oidc: oidcSettings }),
    errors: [502],
  }),
  delete: endpoint({
    method: 'delete',
    path: settingsPath,
    operationId: 'removeOidc',
    tag: 'Settings',
    summary: 'Turn single sign-on off',
    access: 'write',
    allProjects: true,
    response: okBody,
    errors: [404],
  }),
  status: endpoint({
    method: 'get',
    path: '/api/auth/oidc',
    operationId: 'getOidcStatus',
    tag: 'Sessions',
    summary: 'Whether the sign-in page offers single sign-on, and the button’s name',
    access: 'public',
    response: z.object({ enabled: z.boolean(), name: z.string().nullable() }),
  }),
  start: endpoint({
    method: 'get',
    path: '/api/auth/oidc/start',
    operationId: 'startOidcSignIn',
    tag: 'Sessions',
    summary: 'A browser’s sign-in through the OpenID provider: redirects there',
    description: `Authorization code with PKCE (S256), state and nonce, kept on the server for 10 minutes under a random value also set as the \`__Host-slipway_oidc\` cookie (\`HttpOnly; Secure; SameSite=Lax\`): only the browser that started may finish. ${refusals}`,
    access: 'public',
    query: z.object({ next: z.string().max(2048).optional().meta({ description: 'Where to land once signed in: a path of this site (default `/`); anything else is `/`.' }) }),
    redirect: 'To the provider’s authorization endpoint, or to the sign-in page with `?sso=not_configured` or `?sso=provider`.',
  }),
  callback: endpoint({
    method: 'get',
    path: '/api/auth/oidc/callback',
    operationId: 'finishOidcSignIn',
    tag: 'Sessions',
    summary: 'Where the OpenID provider sends the browser back: signs the person in',
    description: `The code is exchanged and the ID token checked (state, nonce, issuer, audience, signature); the e-mail must be verified and in an allowed domain. The person is found by their provider account, else by e-mail; a first sign-in makes them with the role of their groups (\`groupRoles\`) or \`defaultRole\`. Sets the session cookie as \`POST /api/sessions\` does; the provider stands for the second factor. ${refusals}`,
    access: 'public',
    query: z.object({ code: z.string().optional(), state: z.string().optional(), iss: z.string().optional(), error: z.string().optional() }),
    redirect: 'To `next`, signed in; or to the sign-in page with `?sso=<reason>`.',
  }),
};
