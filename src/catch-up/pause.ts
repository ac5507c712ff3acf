/**
 * Why a follower of the log stopped consuming for now: a fault of the database or of the connection to it.
 * Nobody is blamed (parked) for it; the same events are tried again with growing waits until it passes.
 */
export interface Pause {
  /** The consumers it holds back, by name (health shows each of them paused). */
  holds: readonly string[];
  error: string;
  since: Date;
  failures: number;
  /** Epoch milliseconds before which the events are not tried again. */
  retryAt: number;
}

/** A paused follower tries again at most this far apart, so it resumes soon after the fault passes. */
export const MAX_PAUSE_MS = 5_000;

/** The one backoff: 250 ms, doubled with each failure in a row, up to `capMs`. */
export const backoffMs = (failures: number, capMs = MAX_PAUSE_MS) => Math.min(capMs, 250 * 2 ** (Math.max(1, failures) - 1));

/** The pause after one more failure: the same pause (its `since`) when one is already running. */
export function nextPause(previous: Pause | null, error: string, holds: readonly string[], now = Date.now()): Pause {
  const failures = (previous?.failures ?? 0) + 1;
  return { holds, error, since: previous?.since ?? new Date(now), failures, retryAt: now + backoffMs(failures) };
}
