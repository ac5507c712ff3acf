import { z } from 'zod';
import { id, okBody } from './common.js';
import { endpoint } from './endpoint.js';
import { projectRole } from '../../../commands/user/roles.js';

const session = z
  .object({
    keyId: id.nullable().meta({ description: 'The key the session was opened with; null for a person’s session.' }),
    userId: id.nullable().meta({ description: 'The person signed in; null for a key’s session.' }),
    role: z.enum(['owner', 'admin', 'member']).nullable().meta({ description: 'The person’s installation role; null for a key.' }),
    name: z.string().nullable().meta({ description: 'The person’s name; null for a key.' }),
    access: z.enum(['read', 'write']),
    projectIds: z.array(id).nullable().meta({ description: 'The projects the key or person can see; null: every project.' }),
    projectRoles: z
      .record(z.string(), projectRole)
      .nullable()
      .meta({ description: 'A member’s role in each of their projects (a `viewer` writes nothing there); null for owners, admins and keys.' }),
    csrfToken: z.string().meta({ description: 'Sent back as `X-CSRF-Token` with every write made through the session cookie.' }),
    idleMinutes: z.number().int().meta({ description: 'The session ends after this long without a request (the `sessionIdleMinutes` setting).' }),
    maxHours: z.number().int().meta({ description: 'The session ends this long after its sign-in, however active (the `sessionMaxHours` setting).' }),
    mustSetUpTwoFactor: z.boolean().meta({ description: 'The installation requires two factors and this person has not turned them on: until they do, only their two-factor set-up, `GET /api/users/me` and sign-out answer (else 403 `two_factor_setup_required`).' }),
  })
  .meta({ id: 'Session' });

/** The dashboard's sign-in: a person's password, or an API key, exchanged for an HttpOnly cookie; neither is kept by the browser. */
export const sessionsApi = {
  create: endpoint({
    method: 'post',
    path: '/api/sessions',
    operationId: 'createSession',
    tag: 'Sessions',
    summary: 'Sign in with an e-mail and password, or an API key: sets the session cookie',
    description:
      'Answers the session and sets `__Host-slipway_session` (`HttpOnly; Secure; SameSite=Strict; Path=/`, no `Domain`: a sibling subdomain cannot plant one). With `{ email, password }` the cookie stands for the person, with their roles as they are at each request (a removal or a narrower role applies at once); an unknown e-mail and a wrong password get the same answer in the same time, and wrong guesses at one account wait longer each time while the right password is answered at once. With `{ key }` the cookie stands for the key on every route, with the key’s own access and scope; a write through it needs the `X-CSRF-Token` header. The session ends when the key is revoked, after `sessionIdleMinutes` without a request, `sessionMaxHours` after sign-in, when the key signs in more than 10 times (its oldest sessions end first), or with `DELETE /api/sessions`. An unknown key counts toward the address’s limit.',
    access: 'public',
    body: z.union([z.object({ key: z.string().min(1).max(200) }), z.object({ email: z.string().max(254), password: z.string().max(1024), code: z.string().max(64).optional().meta({ description: 'With two factors on: a current code of the authenticator app, or one of the recovery codes.' }) })]),
    response: z.object({ session }),
    errors: [400, 401, 429],
  }),
  current: endpoint({
    method: 'get',
    path: '/api/sessions/current',
    operationId: 'getSession',
    tag: 'Sessions',
    summary: 'The session of this cookie (its key’s access and scope, and its CSRF token)',
    access: 'read',
    response: z.object({ session }),
  }),
  delete: endpoint({
    method: 'delete',
    path: '/api/sessions',
    operationId: 'deleteSession',
    tag: 'Sessions',
    summary: 'Sign out: ends the session of this cookie and clears it',
    access: 'read',
    response: okBody,
  }),
};
