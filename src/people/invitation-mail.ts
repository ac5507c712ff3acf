import type { MailMessage } from '../integrations/mail/mailer.js';

export interface InvitationLetter {
  to: string;
  url: string;
  /** Who invited them, as the audit log names them (a person's name, or a key's). */
  invitedBy: string;
  role: string;
  projects: number;
  expiresAt: string;
}

const ROLE_WORDS: Record<string, string> = {
  owner: 'an owner (everything)',
  admin: 'an admin (every project)',
  member: 'a member',
};

/** The invitation as a plain-text mail: the link, who sent it, the role, and until when it works. */
export function invitationMessage(letter: InvitationLetter): MailMessage {
  const role = ROLE_WORDS[letter.role] ?? letter.role;
  const projects = letter.role === 'member' ? ` of ${letter.projects} project${letter.projects === 1 ? '' : 's'}` : '';
  return {
    to: [letter.to],
    subject: `${letter.invitedBy} invited you to Slipway`,
    text: [
      `${letter.invitedBy} invited you to Slipway as ${role}${projects}.`,
      '',
      'Choose your name and password here (the link works once):',
      letter.url,
      '',
      `It expires on ${new Date(letter.expiresAt).toUTCString()}.`,
      'If you did not expect this, ignore this mail: nothing happens without the link.',
    ].join('\n'),
  };
}
