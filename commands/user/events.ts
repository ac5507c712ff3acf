import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { installationRole } from './roles.js';

/**
 * A person's e-mail and name are sealed with a data key of their own (the keyring's, under `user-<id>`):
 * erasing the person shreds that key, and every copy of them in the log becomes unreadable while the events stay.
 * Passwords are never here: their hashes live in the credentials table (src/people/credentials.ts).
 */
export const userEvents = {
  UserCreated: z.object({
    role: installationRole,
    sealedEmail: z.string(),
    sealedName: z.string(),
    /** How they came: the first owner's set-up, or the invitation they accepted. */
    invitationId: z.string().nullable(),
  }),
  UserRenamed: z.object({ sealedName: z.string() }),
  UserRoleChanged: z.object({ role: installationRole }),
  /** Their password changed: every session of theirs ends. */
  UserPasswordChanged: z.object({}),
  /** Sign-in now asks for a code of their authenticator app (the secret itself is in the credentials table, sealed). */
  UserTwoFactorEnabled: z.object({}),
  UserTwoFactorDisabled: z.object({}),
  UserRemoved: z.object({}),
  /** Their data key is shredded: the log says "deleted user <id>" from then on. */
  UserErased: z.object({}),
};
export type UserEvent = EventsOf<typeof userEvents>;
export const parseUserEvent = eventParser(userEvents);
