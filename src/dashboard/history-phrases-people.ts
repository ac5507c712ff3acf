import { nameOf, str, type Phrase, type Said } from './history-names.js';

const project = (s: Said) => nameOf(s.names.projects, s.id, 'a project');
const a = (role: unknown) => (str(role) === 'admin' || str(role) === 'owner' ? `an ${str(role)}` : `a ${str(role)}`);

/**
 * People, invitations and a project's members. The API names who did it; the person acted on is only in the
 * event as an id (their name is sealed), so it reads "a person" here and the People tab names them.
 */
export const PEOPLE_PHRASES: Record<string, Phrase> = {
  UserCreated: ({ who, d }) => (d.invitationId ? `A person joined as ${a(d.role)}` : `${who} made the first owner`),
  UserRenamed: ({ who }) => `${who} changed their name`,
  UserRoleChanged: ({ who, d }) => `${who} changed a person’s role to ${str(d.role)}`,
  UserPasswordChanged: ({ who }) => `${who} changed their password`,
  UserTwoFactorEnabled: ({ who }) => `${who} turned two factors on`,
  UserTwoFactorDisabled: ({ who }) => `${who} turned two factors off`,
  UserRemoved: ({ who }) => `${who} removed a person`,
  UserErased: ({ who }) => `${who} erased a person’s name and e-mail`,
  InvitationCreated: ({ who, d }) => `${who} invited a person as ${a(d.role)}`,
  InvitationAccepted: () => 'An invitation was accepted',
  InvitationRevoked: ({ who }) => `${who} revoked an invitation`,
  ProjectMemberSet: (s) => `${s.who} gave a member the ${str(s.d.role)} role in ${project(s)}`,
  ProjectMemberRemoved: (s) => `${s.who} took a member out of ${project(s)}`,
};
