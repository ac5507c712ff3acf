import { z } from 'zod';
import { notFound } from '../shared/domain-error.js';

/** How the SMTP connection is secured: `implicit` TLS from the first byte, `starttls` required, or `none` (no password then). */
export const MAIL_TLS = ['implicit', 'starttls', 'none'] as const;

/** The installation's own mail (invitations, alerts to the owners), kept apart from the other settings for an easy merge. */
export const mailSettingsEvents = {
  MailSettingsChanged: z.object({
    host: z.string(),
    port: z.number().int(),
    tls: z.enum(MAIL_TLS),
    username: z.string().nullable(),
    /** Sealed under the settings' data key; null when the server takes mail without a login. */
    password: z.string().nullable(),
    from: z.string(),
  }),
  MailSettingsRemoved: z.object({}),
};

export type MailSettings = z.infer<typeof mailSettingsEvents.MailSettingsChanged>;
type MailEvent = { type: 'MailSettingsChanged'; data: MailSettings } | { type: 'MailSettingsRemoved'; data: Record<string, never> };

/** The route probed the server with these settings: they are recorded as given, replacing any before. */
export const decideChangeMail = (_state: { mail: MailSettings | null }, settings: MailSettings): MailEvent[] => [{ type: 'MailSettingsChanged', data: settings }];

export function decideRemoveMail(state: { mail: MailSettings | null }): MailEvent[] {
  if (!state.mail) throw notFound('mail settings');
  return [{ type: 'MailSettingsRemoved', data: {} }];
}
