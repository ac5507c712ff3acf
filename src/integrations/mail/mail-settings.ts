import { z } from 'zod';
import { MAIL_TLS, type MailSettings } from '../../../commands/settings/mail.js';
import type { SmtpServer } from './transport.js';

const email = z.email('must be an e-mail address').max(320);
/** A DNS name or an IP address: nothing else (no spaces, no control characters) reaches the SMTP client. */
const host = z.union([z.hostname().max(253), z.ipv6()], { error: 'a host name or an IP address' });

/** `PUT /api/settings/mail`: a password is only ever sent over TLS, as for the e-mail notification channel. */
export const mailSettingsBody = z
  .object({
    host,
    port: z.number().int().min(1).max(65535),
    tls: z.enum(MAIL_TLS).meta({ description: '`implicit`: TLS from the first byte (usually port 465); `starttls`: the server must upgrade (usually 587); `none`: no login password then.' }),
    username: z.string().min(1).max(320).optional(),
    password: z.string().min(1).max(1024).optional(),
    from: email,
  })
  .strict()
  .refine((c) => !c.password || c.tls !== 'none', {
    path: ['password'],
    error: 'an SMTP password is only sent over TLS: set tls to implicit or starttls',
  })
  .refine((c) => !c.password || c.username, { path: ['username'], error: 'a password needs its username' });

export type MailSettingsBody = z.output<typeof mailSettingsBody>;

export const mailSettingsOf = (body: MailSettingsBody): MailSettings => ({
  host: body.host,
  port: body.port,
  tls: body.tls,
  username: body.username ?? null,
  password: body.password ?? null,
  from: body.from,
});

/** The same TLS semantics as the e-mail channel's `secure` / `requireTLS`. */
export const smtpServerOf = (settings: MailSettings): SmtpServer => ({
  host: settings.host,
  port: settings.port,
  secure: settings.tls === 'implicit',
  requireTLS: settings.tls === 'starttls',
  user: settings.username ?? '',
  password: settings.password ?? '',
});
