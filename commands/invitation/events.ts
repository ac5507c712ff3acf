import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { installationRole, projectGrant } from '../user/roles.js';

/** The invited e-mail is sealed under the invitation's own data key, shredded once it is accepted, revoked or expired. */
export const invitationEvents = {
  InvitationCreated: z.object({
    sealedEmail: z.string(),
    role: installationRole,
    projects: z.array(projectGrant),
    /** SHA-256 of the single-use token; the token itself is shown once. */
    tokenHash: z.string(),
    expiresAt: z.string(),
  }),
  InvitationAccepted: z.object({ userId: z.string() }),
  InvitationRevoked: z.object({}),
};
export type InvitationEvent = EventsOf<typeof invitationEvents>;
export const parseInvitationEvent = eventParser(invitationEvents);
