const MASK = '…';

function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, masked(v)]));
  return MASK;
}

/**
 * A MongoDB command document (Extended JSON, which is JSON) as auditors see it: every key kept, every value
 * `"…"`, at every depth. Text that is not JSON throws.
 */
export function maskMongoCommand(text: string): string {
  return JSON.stringify(masked(JSON.parse(text) as unknown));
}
