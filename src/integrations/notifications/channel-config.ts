import { z } from 'zod';
import { maskedUrl, SECRET_FIELDS } from '../../../commands/notification-channel/destination.js';
import type { ChannelType } from '../../../commands/notification-channel/events.js';

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);
const email = z.email().max(320);
/** A DNS name or an IP address: nothing else (no spaces, no control characters) reaches the SMTP client. */
const host = z.union([z.hostname().max(253), z.ipv6()], { error: 'a host name or an IP address' });

/** Per type: the fields shown back, and the secret fields kept sealed (never shown). */
export const channelConfigSchemas = {
  webhook: z.object({ url: httpUrl, secret: z.string().min(16).max(256).optional() }).strict(),
  slack: z.object({ webhookUrl: httpUrl }).strict(),
  discord: z.object({ webhookUrl: httpUrl }).strict(),
  email: z
    .object({
      host,
      port: z.number().int().min(1).max(65535).default(587),
      /** Implicit TLS from the first byte (usually port 465). */
      secure: z.boolean().default(false),
      /** Without `secure`: refuse to go on unless the server upgrades with STARTTLS. */
      requireTLS: z.boolean().default(false),
      user: z.string().max(320).default(''),
      password: z.string().max(1024).default(''),
      from: email,
      to: z.array(email).min(1).max(50),
    })
    .strict()
    .refine((c) => !c.password || c.secure || c.requireTLS, {
      path: ['password'],
      error: 'an SMTP password is only sent over TLS: set secure (implicit TLS) or requireTLS (STARTTLS required)',
    }),
} satisfies Record<ChannelType, z.ZodType>;

export type ChannelConfig<T extends ChannelType> = z.output<(typeof channelConfigSchemas)[T]>;

/** A configuration split into what is shown and what is sealed; a webhook's URL is shown masked. */
export function splitConfig(type: ChannelType, config: Record<string, unknown>) {
  const secret = new Set(SECRET_FIELDS[type]);
  const visible = Object.fromEntries(Object.entries(config).filter(([k]) => !secret.has(k)));
  const secrets = Object.fromEntries(Object.entries(config).filter(([k]) => secret.has(k)));
  if (type === 'webhook' && typeof config.url === 'string') visible.url = maskedUrl(config.url);
  return { visible, secrets };
}

/** The secret fields a request gives, less those equal to what is stored (giving the same URL again moves nothing). */
export function suppliedSecrets(type: ChannelType, given: Record<string, unknown>, stored: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(given).filter(([k, v]) => SECRET_FIELDS[type].includes(k) && v !== stored[k]));
}

/** Where a channel connects: checked against the outbound policy when it is saved, and at every delivery. */
export function destinationOfConfig(type: ChannelType, config: Record<string, unknown>): { field: string; host: string; port: number } {
  if (type === 'email') return { field: 'config.host', host: String(config.host), port: Number(config.port) };
  const field = type === 'webhook' ? 'url' : 'webhookUrl';
  const url = new URL(String(config[field]));
  return { field: `config.${field}`, host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
}
