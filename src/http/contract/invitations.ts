import { z } from 'zod';
import { installationRole } from '../../../commands/user/roles.js';
import { id, okBody, timestamp } from './common.js';
import { endpoint } from './endpoint.js';
import { email, grantedProjectRole, newPerson, person, roleDescription } from './people.js';

const grant = z.object({ projectId: id, role: grantedProjectRole });

export const invitationView = z
  .object({ id, email: z.string().nullable(), role: installationRole, projects: z.array(grant), expiresAt: timestamp, createdAt: timestamp })
  .meta({ id: 'Invitation' });

/** Whether the invitation was mailed; `reason`: "no mail settings", or what the mail server or the network said. */
const invitationMail = z
  .union([z.object({ sent: z.literal(true) }), z.object({ sent: z.literal(false), reason: z.string() })])
  .meta({ id: 'InvitationMail' });

export const invitationsApi = {
  invite: endpoint({
    method: 'post',
    path: '/api/invitations',
    operationId: 'invitePerson',
    tag: 'People',
    summary: 'Invite a person: the answer holds the link, shown this once (valid 7 days, used once)',
    description:
      'Owners invite anyone; admins invite admins and members. Only the link’s hash is kept. With mail settings (`PUT /api/settings/mail`) the link is also mailed to the invited address; a mail that fails leaves the invitation as it is.',
    access: 'write',
    allProjects: true,
    body: z.object({ email, role: installationRole.meta({ description: roleDescription }), projects: z.array(grant).max(1000).default([]).meta({ description: 'For a member: their projects and role in each.' }) }),
    response: z.object({
      invitation: invitationView,
      url: z.string().meta({ description: 'The dashboard’s page that accepts it; the token is its last segment.' }),
      mail: invitationMail,
    }),
    errors: [409],
  }),
  invitations: endpoint({
    method: 'get',
    path: '/api/invitations',
    operationId: 'listInvitations',
    tag: 'People',
    summary: 'Invitations not yet accepted, revoked or expired',
    access: 'write',
    allProjects: true,
    response: z.object({ invitations: z.array(invitationView) }),
  }),
  revokeInvitation: endpoint({
    method: 'delete',
    path: '/api/invitations/:invitationId',
    operationId: 'revokeInvitation',
    tag: 'People',
    summary: 'Revoke an invitation: its link stops working',
    access: 'write',
    allProjects: true,
    response: okBody,
  }),
  accept: endpoint({
    method: 'post',
    path: '/api/invitations/:token/accept',
    operationId: 'acceptInvitation',
    tag: 'People',
    summary: 'Accept an invitation: the person’s account, signed in (sets the session cookie)',
    description: 'A used, revoked or expired link is 410 `invitation_gone`.',
    access: 'public',
    body: z.object(newPerson),
    response: z.object({ user: person }),
    errors: [400, 409, 410, 429],
  }),
};
