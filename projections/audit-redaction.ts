import { redactStatement } from '../commands/database/statement-redaction.js';
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

// Fields of some event types that may hold a secret in older versions: DatabaseQueryRun v1 kept the statement
// in clear, and v2 events written before statements were masked by a lexer only had password literals redacted.
type FieldRedaction = (value: string, data: Record<string, unknown>) => string;
const FIELD_REDACTION: Record<string, Record<string, FieldRedaction>> = {
  DatabaseQueryRun: { statement: (statement, data) => redactStatement(typeof data.engine === 'string' ? data.engine : '', statement) },
};

/** The redacted data; most events hold nothing to redact and are returned as they are. */
export function auditData(type: string, data: Record<string, unknown>): Record<string, unknown> {
  const fields = FIELD_REDACTION[type];
  const cleared = fields
    ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === 'string' && fields[k] ? fields[k](v, data) : v]))
    : data;
  return needsRedaction(cleared) ? (redactEventData(cleared) as Record<string, unknown>) : cleared;
}
