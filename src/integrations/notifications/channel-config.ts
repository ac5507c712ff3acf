import { z } from 'zod';
import type { ChannelType } from '../../../commands/notification-channel/events.js';

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);
const email = z.email().max(320);

/** Per type: the fields shown back, and the secret fields kept sealed (never shown). */
export const channelConfigSchemas = {
  webhook: z.object({ url: httpUrl, secret: z.string().min(16).max(256).optional() }).strict(),
  slack: z.object({ webhookUrl: httpUrl }).strict(),
  discord: z.object({ webhookUrl: httpUrl }).strict(),
  email: z
    .object({
      host: z.string().min(1).max(253),
      port: z.number().int().min(1).max(65535).default(587),
      secure: z.boolean().default(false),
      user: z.string().max(320).default(''),
      password: z.string().max(1024).default(''),
      from: email,
      to: z.array(email).min(1).max(50),
    })
    .strict(),
} satisfies Record<ChannelType, z.ZodType>;

export type ChannelConfig<T extends ChannelType> = z.output<(typeof channelConfigSchemas)[T]>;

const SECRET_FIELDS: Record<ChannelType, readonly string[]> = {
  webhook: ['secret'],
  slack: ['webhookUrl'],
  discord: ['webhookUrl'],
  email: ['password'],
};

/** A configuration split into what is shown and what is sealed. */
export function splitConfig(type: ChannelType, config: Record<string, unknown>) {
  const secret = new Set(SECRET_FIELDS[type]);
  const visible = Object.fromEntries(Object.entries(config).filter(([k]) => !secret.has(k)));
  const secrets = Object.fromEntries(Object.entries(config).filter(([k]) => secret.has(k)));
  return { visible, secrets };
}

/** Where a channel connects: checked against the outbound policy when it is saved, and at every delivery. */
export function destinationOfConfig(type: ChannelType, config: Record<string, unknown>): { field: string; host: string; port: number } {
  if (type === 'email') return { field: 'config.host', host: String(config.host), port: Number(config.port) };
  const field = type === 'webhook' ? 'url' : 'webhookUrl';
  const url = new URL(String(config[field]));
  return { field: `config.${field}`, host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
}
