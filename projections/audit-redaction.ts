import { isEncrypted } from '../src/secrets/keyring.js';

const HIDDEN_FIELDS = new Set(['secretHash']);

/** What auditors see of event data: encrypted fields marked, credential material dropped. */
export function redactEventData(value: unknown): unknown {
  if (isEncrypted(value)) return '[encrypted]';
  if (Array.isArray(value)) return value.map(redactEventData);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, HIDDEN_FIELDS.has(k) ? '[redacted]' : redactEventData(v)]),
    );
  }
  return value;
}
