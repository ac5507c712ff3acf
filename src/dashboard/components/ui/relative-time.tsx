import { useEffect } from 'preact/hooks';
import { now, startMinuteClock } from '../../minute-clock.js';
import { exactTime, timeAgo } from '../../time-ago.js';

/** A moment as "3 min ago", kept current each minute; the exact local time on hover and in `datetime`. */
export function RelativeTime({ at }: { at: string }) {
  useEffect(startMinuteClock, []);
  const date = new Date(at);
  return (
    <time dateTime={at} title={exactTime(date)}>
      {timeAgo(date, now.value)}
    </time>
  );
}
