import t from 'tap';
import { scheduleWords } from '../../src/dashboard/schedule-words.js';

t.test('a schedule in plain words where it reads simply; null where it does not', async (t) => {
  const cases: [string, string | null][] = [
    ['* * * * *', 'every minute'],
    ['*/5 * * * *', 'every 5 minutes'],
    ['0 * * * *', 'every hour'],
    ['15 * * * *', 'every hour at :15'],
    ['30 */6 * * *', 'every 6 hours at :30'],
    ['0 9 * * *', 'every day at 09:00'],
    ['30 8 * * 1-5', 'every weekday at 08:30'],
    ['0 22 * * 0', 'every Sunday at 22:00'],
    ['0 22 * * 7', 'every Sunday at 22:00'],
    ['5 4 1 * *', 'on the 1st of every month at 04:05'],
    ['5 4 22 * *', 'on the 22nd of every month at 04:05'],
    ['0 0 11 * *', 'on the 11th of every month at 00:00'],
    ['@daily', 'every day at 00:00'],
    ['@HOURLY', 'every hour'],
    ['0 9 * 1 *', null],
    ['0 9,17 * * *', null],
    ['*/5 9-17 * * 1-5', null],
    ['0 9 1 * 1', null],
    ['@reboot', null],
    ['not a schedule', null],
  ];
  for (const [schedule, words] of cases) t.equal(scheduleWords(schedule), words, schedule);
});
