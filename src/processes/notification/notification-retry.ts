/** Retries stop once a notification is this old: it is abandoned. */
export const GIVE_UP_AFTER_MS = 24 * 60 * 60_000;
const LONGEST_WAIT_MS = 60 * 60_000;

/**
 * When a failed attempt is tried again: the first retry after `firstMs`, each next one twice as long (at most an
 * hour); null when it is not (`permanent`, or it would fall past 24 hours after the notification was queued). Pure.
 */
export function retryAtOf(attempt: number, permanent: boolean, queuedAt: Date, now: Date, firstMs: number): Date | null {
  if (permanent) return null;
  const at = new Date(now.getTime() + Math.min(LONGEST_WAIT_MS, firstMs * 2 ** (attempt - 1)));
  return at.getTime() - queuedAt.getTime() > GIVE_UP_AFTER_MS ? null : at;
}
