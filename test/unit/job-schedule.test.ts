import t from 'tap';
import { dueToRun, latestDueAtOrBefore, nextDueAfter, parseSchedule, scheduledRunId } from '../../commands/job/schedule.js';

const at = (iso: string) => new Date(iso).getTime();
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
function cronOf(schedule: string, zone = 'UTC') {
  const parsed = parseSchedule(schedule, zone);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.cron;
}

t.test('a zone is honoured across daylight saving time', async (t) => {
  const nineInNewYork = cronOf('0 9 * * *', 'America/New_York');
  t.equal(iso(nextDueAfter(nineInNewYork, at('2026-01-10T00:00:00Z'))), '2026-01-10T14:00:00.000Z', 'winter (EST): 14:00 UTC');
  t.equal(iso(nextDueAfter(nineInNewYork, at('2026-07-10T00:00:00Z'))), '2026-07-10T13:00:00.000Z', 'summer (EDT): 13:00 UTC');
  t.equal(iso(nextDueAfter(nineInNewYork, at('2026-03-07T15:00:00Z'))), '2026-03-08T13:00:00.000Z', 'the day DST starts');
  t.equal(iso(nextDueAfter(cronOf('0 9 * * *'), at('2026-07-10T00:00:00Z'))), '2026-07-10T09:00:00.000Z', 'UTC by default');
});

t.test('nicknames and five fields; everything else refused with the field named', async (t) => {
  t.equal(iso(nextDueAfter(cronOf('@hourly'), at('2026-03-07T12:30:00Z'))), '2026-03-07T13:00:00.000Z');
  t.equal(iso(nextDueAfter(cronOf('@weekly'), at('2026-03-07T12:30:00Z'))), '2026-03-08T00:00:00.000Z', 'Sunday midnight');
  t.equal(iso(nextDueAfter(cronOf('@midnight'), at('2026-03-07T12:30:00Z'))), '2026-03-08T00:00:00.000Z');
  t.equal(iso(nextDueAfter(cronOf('@yearly'), at('2026-03-07T12:30:00Z'))), '2027-01-01T00:00:00.000Z');
  t.equal(iso(nextDueAfter(cronOf('*/5 * * * *'), at('2026-03-07T12:30:00Z'))), '2026-03-07T12:35:00.000Z', 'strictly after');
  for (const bad of ['', 'every minute', '* * * *', '* * * * * *', '@reboot', '@every 5m', '0 25 * * *']) t.match(parseSchedule(bad, 'UTC'), { ok: false, field: 'schedule' }, `"${bad}"`);
  for (const zone of ['Mars/Olympus', '', '../../etc/passwd', 'x'.repeat(100)]) t.match(parseSchedule('* * * * *', zone), { ok: false, field: 'timezone' }, `zone "${zone.slice(0, 20)}"`);
});

t.test('a due time is inclusive of now; missed slots run once, the latest', async (t) => {
  const everyMinute = cronOf('* * * * *');
  t.equal(iso(latestDueAtOrBefore(everyMinute, at('2026-03-07T12:00:00Z'))), '2026-03-07T12:00:00.000Z', 'a due time exactly now is due');
  t.equal(iso(latestDueAtOrBefore(everyMinute, at('2026-03-07T12:00:59.999Z'))), '2026-03-07T12:00:00.000Z');
  // Down from 11:00:30 to 12:10:20: seventy slots missed, one run, for 12:10.
  t.equal(iso(dueToRun(everyMinute, at('2026-03-07T12:10:20Z'), at('2026-03-07T11:00:30Z'))), '2026-03-07T12:10:00.000Z');
  t.equal(dueToRun(everyMinute, at('2026-03-07T12:10:20Z'), at('2026-03-07T12:10:00Z')), null, 'the latest one was already handled');
  t.equal(dueToRun(cronOf('0 3 * * *'), at('2026-03-07T12:00:00Z'), at('2026-03-07T04:00:00Z')), null, 'nothing due since');
});

t.test('derived run ids: stable for one due time, distinct across due times and jobs', async (t) => {
  const a = 'a0000000-0000-4000-8000-000000000001';
  const b = 'a0000000-0000-4000-8000-000000000002';
  const due = at('2026-03-07T12:00:00Z');
  t.equal(scheduledRunId(a, due), scheduledRunId(a, due));
  t.match(scheduledRunId(a, due), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a UUID');
  t.not(scheduledRunId(a, due), scheduledRunId(a, due + 60_000));
  t.not(scheduledRunId(a, due), scheduledRunId(b, due));
});
