import type Router from '@koa/router';
import { invitationGone } from '../../../commands/invitation/aggregate.js';
import { acceptInvitation, hashInvitationToken, invitePerson, revokeInvitation } from '../../../commands/invitation/handlers.js';
import { invalid } from '../../../commands/shared/domain-error.js';
import { findApiKey } from '../../../projections/api-key-queries.js';
import { findInvitation, findInvitationByTokenHash, findUser, listPendingInvitations, type InvitationRow } from '../../../projections/people-queries.js';
import type { Mailer, MailOutcome } from '../../integrations/mail/mailer.js';
import { invitationMessage } from '../../people/invitation-mail.js';
import type { People } from '../../people/people.js';
import type { Slipway } from '../../slipway.js';
import { apiBaseUrl } from '../api-base-url.js';
import { isId, principalOf, writerOf } from '../auth.js';
import { clientAddressOf } from '../client-address.js';
import { route } from '../contract/endpoint.js';
import { invitationsApi } from '../contract/invitations.js';
import { forbidden, notFoundHttp } from '../errors.js';
import type { KeyFailureLimiter } from '../key-failure-limiter.js';
import type { Principal } from '../principals.js';
import { requestContext } from '../request-context.js';
import { correlationIdOf } from '../request-id.js';
import { setSessionCookie, type SessionAuth } from '../session-auth.js';
import { parseInput } from '../validation.js';
import { activePerson, personOf, requirePeopleAdmin } from './people.js';
import { originOf } from './sessions.js';

const iso = (value: Date | string) => new Date(value).toISOString();

async function invitationOf(people: People, row: InvitationRow) {
  return {
    id: row.id,
    email: await people.openSealed(row.sealed_email),
    role: row.role,
    projects: row.projects,
    expiresAt: iso(row.expires_at),
    createdAt: iso(row.created_at),
  };
}

/** Who sent an invitation, as the audit log names them: a person's name, or a key's. */
async function inviterName(app: Slipway, people: People, principal: Principal): Promise<string> {
  if (principal.userId) {
    const row = await findUser(app.db, principal.userId);
    if (row) return (await people.view(row)).name;
  }
  const key = principal.keyId ? await findApiKey(app.db, principal.keyId) : null;
  return key ? `The API key ${key.name}` : 'Slipway';
}

/** `POST /api/invitations/:token/accept`: no key, the token is the credential; unknown tokens count like unknown keys. */
export function invitationAcceptRoutes(router: Router, app: Slipway, people: People, failures: KeyFailureLimiter, sessions: SessionAuth) {
  route(router, invitationsApi.accept, async (ctx) => {
    const body = parseInput(invitationsApi.accept.body, ctx.request.body ?? {});
    const invitation = await findInvitationByTokenHash(app.db, hashInvitationToken(ctx.params.token!));
    if (!invitation) {
      await failures.failed(clientAddressOf(ctx), ctx.params.token!);
      throw invitationGone();
    }
    const context = app.commandContext('system:invitation', { correlationId: correlationIdOf(ctx), idempotencyKey: null });
    const { userId, position } = await acceptInvitation(context, people, invitation.id, body, new Date());
    await app.settle(position);
    const opened = await sessions.store.open({ userId }, originOf(ctx));
    setSessionCookie(ctx, opened.token);
    ctx.body = { user: await personOf(app, people, await activePerson(app, userId)) };
  });
}

/** Inviting, listing and revoking: owners, admins and all-project write keys. The invitation is mailed when the installation has mail settings. */
export function invitationRoutes(router: Router, app: Slipway, people: People, mailer: Mailer) {
  route(router, invitationsApi.invite, async (ctx) => {
    const principal = writerOf(ctx);
    requirePeopleAdmin(principal, 'inviting people');
    const body = parseInput(invitationsApi.invite.body, ctx.request.body);
    if (body.role === 'owner' && principal.role !== null && principal.role !== 'owner') throw forbidden('only owners invite owners');
    if (body.role !== 'member' && body.projects.length > 0) throw invalid('projects', 'owners and admins have every project: give projects to members only');
    const invited = await invitePerson(requestContext(app, ctx, principal), people, body, new Date());
    await app.settle(invited.position);
    const invitation = await invitationOf(people, (await findInvitation(app.db, invited.id))!);
    const url = `${await apiBaseUrl(app, ctx)}/invitations/${invited.token}`;
    // After the invitation is recorded: a mail that fails is said in the answer and undoes nothing.
    const letter = { to: body.email, url, invitedBy: await inviterName(app, people, principal), role: body.role, projects: invitation.projects.length, expiresAt: invitation.expiresAt };
    const mail: MailOutcome = await mailer.send(invitationMessage(letter));
    if (!mail.sent && mail.reason !== 'no mail settings') app.log.warn('the invitation could not be mailed', { invitationId: invited.id, reason: mail.reason });
    ctx.body = { invitation, url, mail };
  });

  route(router, invitationsApi.invitations, async (ctx) => {
    requirePeopleAdmin(principalOf(ctx), 'listing invitations');
    ctx.body = { invitations: await Promise.all((await listPendingInvitations(app.db)).map((row) => invitationOf(people, row))) };
  });

  route(router, invitationsApi.revokeInvitation, async (ctx) => {
    const principal = writerOf(ctx);
    requirePeopleAdmin(principal, 'revoking invitations');
    if (!isId(ctx.params.invitationId!) || !(await findInvitation(app.db, ctx.params.invitationId!))) throw notFoundHttp('invitation');
    const { position } = await revokeInvitation(requestContext(app, ctx, principal), ctx.params.invitationId!);
    await app.settle(position);
    ctx.body = { ok: true };
  });
}
