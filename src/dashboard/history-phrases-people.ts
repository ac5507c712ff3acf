import { nameOf, str, type Phrase, type Said } from './history-names.js';

const project = (s: Said) => nameOf(s.names.projects, s.id, 'a project');
const a = (role: unknown) => (str(role) === 'admin' || str(role) === 'owner' ? `an ${str(role)}` : `a ${str(role)}`);

/**
 * People, invitations and a project's members. A person's name and e-mail are sealed in the log: the audit log
 * reads the actor's name, but a person acted on is only "a person" here; the People tab names them.
 */
export const PEOPLE_PHRASES: Record<string, Phrase> = {
  UserCreated: ({ who, d }) => (d.invitationId ? `A person joined as ${a(d.role)}` : `${who} made the first owner`),
  UserRenamed: ({ who }) => `${who} changed a person’s name`,
  UserRoleChanged: ({ who, d }) => `${who} made a person ${a(d.role)}`,
  UserPasswordChanged: ({ who }) => `${who} changed their password`,
  UserTwoFactorEnabled: ({ who }) => `${who} turned two factors on`,
  UserTwoFactorDisabled: ({ who }) => `${who} turned two factors off`,
  UserRemoved: ({ who }) => `${who} removed a person`,
  UserErased: ({ who }) => `${who} erased a person’s name and e-mail`,
  InvitationCreated: ({ who, d }) => `${who} invited a person as ${a(d.role)}`,
  InvitationAccepted: () => 'An invitation was accepted',
  InvitationRevoked: ({ who }) => `${who} revoked an invitation`,
  ProjectMemberSet: (s) => `${s.who} made a person ${a(s.d.role)} of ${project(s)}`,
  ProjectMemberRemoved: (s) => `${s.who} took a person out of ${project(s)}`,
};
