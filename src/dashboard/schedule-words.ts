const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const NICKNAMES: Record<string, string> = {
  '@hourly': 'every hour',
  '@daily': 'every day at 00:00',
  '@midnight': 'every day at 00:00',
  '@weekly': 'every Sunday at 00:00',
  '@monthly': 'on the 1st of every month at 00:00',
  '@yearly': 'every 1 January at 00:00',
  '@annually': 'every 1 January at 00:00',
};

const number = (field: string, max: number): number | null => (/^\d{1,2}$/.test(field) && Number(field) <= max ? Number(field) : null);
const every = (field: string): number | null => {
  const step = /^\*\/(\d{1,2})$/.exec(field);
  return step ? Number(step[1]) : null;
};
const clock = (hour: number, minute: number) => `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
const ordinal = (n: number) => `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;

/** The days of the week a field names, when it is one day (0–7) or `1-5`; null otherwise. */
function weekdays(field: string): string | null {
  if (field === '1-5') return 'every weekday';
  if (field === '0,6' || field === '6,0') return 'every Saturday and Sunday';
  const day = number(field, 7);
  return day === null ? null : `every ${DAYS[day % 7]}`;
}

/**
 * A schedule in plain words where it reads simply ("every 5 minutes", "every day at 09:00", "every weekday at
 * 08:30"); null for anything else, which is shown as its cron fields only.
 */
export function scheduleWords(schedule: string): string | null {
  const trimmed = schedule.trim().toLowerCase();
  if (trimmed.startsWith('@')) return NICKNAMES[trimmed] ?? null;
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5) return null;
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string];
  if (month !== '*') return null;
  const anyDay = dayOfMonth === '*' && dayOfWeek === '*';

  if (anyDay && hour === '*') {
    if (minute === '*') return 'every minute';
    const step = every(minute);
    if (step !== null) return step === 1 ? 'every minute' : `every ${step} minutes`;
    const at = number(minute, 59);
    if (at !== null) return at === 0 ? 'every hour' : `every hour at :${String(at).padStart(2, '0')}`;
    return null;
  }
  const at = number(minute, 59);
  if (at === null) return null;
  if (anyDay) {
    const step = every(hour);
    if (step !== null) return step === 1 ? `every hour at :${String(at).padStart(2, '0')}` : `every ${step} hours at :${String(at).padStart(2, '0')}`;
  }
  const h = number(hour, 23);
  if (h === null) return null;
  const time = clock(h, at);
  if (anyDay) return `every day at ${time}`;
  if (dayOfMonth === '*') {
    const days = weekdays(dayOfWeek);
    return days === null ? null : `${days} at ${time}`;
  }
  const day = dayOfWeek === '*' ? number(dayOfMonth, 31) : null;
  return day === null || day === 0 ? null : `on the ${ordinal(day)} of every month at ${time}`;
}
