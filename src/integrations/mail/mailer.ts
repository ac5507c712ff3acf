import type { MailSettings } from '../../../commands/settings/mail.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { ForbiddenDestinationError } from '../../outbound/forbidden-destination.js';
import { smtpServerOf } from './mail-settings.js';
import { smtpFailure, smtpTransport } from './transport.js';

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
}

/** How a mail went; `reason` is what the server or the network said, never a secret. */
export type MailOutcome = { sent: true } | { sent: false; reason: string };

/** The installation's mail, sent with its mail settings; never throws for what the server or the network does. */
export interface Mailer {
  send(message: MailMessage): Promise<MailOutcome>;
}

const why = (error: unknown): string => {
  if (error instanceof ForbiddenDestinationError) return error.message;
  const cause = (error as { cause?: { code?: string } }).cause;
  const { status, message } = smtpFailure(error);
  return status !== null ? `the mail server answered ${status}: ${message}` : `could not reach the mail server: ${cause?.code ?? message}`;
};

/**
 * Connects, greets and logs in (nodemailer's verify): what must work before settings are recorded. Null when it
 * worked, else why not; a refused destination is thrown (ForbiddenDestinationError).
 */
export async function probeMailServer(policy: DestinationPolicy, settings: MailSettings, timeoutMs?: number): Promise<string | null> {
  try {
    const transport = await smtpTransport(policy, smtpServerOf(settings), timeoutMs);
    try {
      await transport.verify();
      return null;
    } finally {
      transport.close();
    }
  } catch (error) {
    if (error instanceof ForbiddenDestinationError) throw error;
    return why(error);
  }
}

/** A Mailer reading the settings at each mail (a change applies to the next one). */
export function settingsMailer(policy: DestinationPolicy, settings: () => Promise<MailSettings | null>): Mailer {
  return {
    async send(message) {
      try {
        const current = await settings();
        if (!current) return { sent: false, reason: 'no mail settings' };
        const transport = await smtpTransport(policy, smtpServerOf(current));
        try {
          await transport.sendMail({ from: current.from, to: message.to, subject: message.subject, text: message.text });
          return { sent: true };
        } finally {
          transport.close();
        }
      } catch (error) {
        return { sent: false, reason: why(error) };
      }
    },
  };
}
