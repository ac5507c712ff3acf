// No Node imports: the dashboard's type-check reaches this file through the upcasters.
import type { ChannelType } from './event-names.js';

/**
 * The configuration fields that say where a channel sends. Stored secrets were given for one destination: when
 * any of these changes, they are dropped unless the same change supplies new ones. Each holds a string, a number
 * or a boolean: compared as they are.
 */
export const DESTINATION_FIELDS: Record<ChannelType, readonly string[]> = {
  webhook: ['url'],
  slack: ['webhookUrl'],
  discord: ['webhookUrl'],
  email: ['host', 'port', 'secure', 'requireTLS', 'user'],
};

/** The secret configuration fields, stored sealed and never shown. */
export const SECRET_FIELDS: Record<ChannelType, readonly string[]> = {
  webhook: ['url', 'secret'],
  slack: ['webhookUrl'],
  discord: ['webhookUrl'],
  email: ['password'],
};

/**
 * Whether a change moves the channel: a visible destination field changes, or a secret destination field (a
 * URL, which is itself sealed) is supplied anew.
 */
export function destinationMoved(type: ChannelType, before: Record<string, unknown>, after: Record<string, unknown>, suppliedSecrets: readonly string[]): boolean {
  return DESTINATION_FIELDS[type].some((field) => suppliedSecrets.includes(field) || (!SECRET_FIELDS[type].includes(field) && before[field] !== after[field]));
}

/** A URL as it is shown: scheme and host (with its port) only; the path and query often carry a token. */
export function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return '…';
  }
}
