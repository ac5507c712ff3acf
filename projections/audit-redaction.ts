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

const needsRedaction = (value: unknown): boolean => {
  if (typeof value === 'string') return value.startsWith('enc:v1:');
  if (Array.isArray(value)) return value.some(needsRedaction);
  if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => HIDDEN_FIELDS.has(k) || needsRedaction(v));
  return false;
};

/** The redacted data; most events hold nothing to redact and are returned as they are. */
export function auditData(data: Record<string, unknown>): Record<string, unknown> {
  return needsRedaction(data) ? (redactEventData(data) as Record<string, unknown>) : data;
}
