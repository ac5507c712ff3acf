const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A duration in the largest unit that fits, or null past a month. */
function span(ms: number): string | null {
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)} h`;
  if (ms < 30 * DAY) {
    const days = Math.floor(ms / DAY);
    return `${days} day${days === 1 ? '' : 's'}`;
  }
  return null;
}

/**
 * How far `at` is from `now` in the few words a person reads at a glance ("just now", "3 min ago",
 * "in 2 h"); further than a month, the date itself.
 */
export function timeAgo(at: Date, now: Date): string {
  const ms = now.getTime() - at.getTime();
  if (Math.abs(ms) < MINUTE) return 'just now';
  const words = span(Math.abs(ms));
  if (words === null) return at.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
  return ms > 0 ? `${words} ago` : `in ${words}`;
}

/** The exact local time, for a tooltip: `27 Nov 2026, 21:02:08`. */
export const exactTime = (at: Date): string => at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
