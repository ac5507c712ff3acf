import t from 'tap';
import { dueDay, retainedBackups, scheduledBackupId } from '../../commands/backup/schedule.js';

const at = (iso: string) => new Date(iso);

t.test('the due day is today once the hour has come, yesterday before it', async (t) => {
  t.equal(dueDay(at('2026-11-23T02:59:59Z'), 3), '2026-11-22', 'before the hour: yesterday (a run missed while down is caught up)');
  t.equal(dueDay(at('2026-11-23T03:00:00Z'), 3), '2026-11-23');
  t.equal(dueDay(at('2026-11-23T23:59:59Z'), 3), '2026-11-23');
  t.equal(dueDay(at('2026-01-01T00:30:00Z'), 3), '2025-12-31', 'across a year');
  t.equal(dueDay(at('2026-11-23T00:00:00Z'), 0), '2026-11-23', 'hour 0');
});

t.test('a scheduled backup id derives from its service and day only', async (t) => {
  t.equal(scheduledBackupId('s1', '2026-11-23'), scheduledBackupId('s1', '2026-11-23'));
  t.not(scheduledBackupId('s1', '2026-11-23'), scheduledBackupId('s1', '2026-11-24'));
  t.not(scheduledBackupId('s1', '2026-11-23'), scheduledBackupId('s2', '2026-11-23'));
  t.match(scheduledBackupId('s1', '2026-11-23'), /^[0-9a-f-]{36}$/);
});

/** One scheduled backup a day for `days` days up to 2026-11-23, driven by an injected clock. */
function daily(days: number) {
  const end = at('2026-11-23T03:00:00Z').getTime();
  return Array.from({ length: days }, (_, i) => {
    const createdAt = new Date(end - i * 86_400_000);
    return { id: createdAt.toISOString().slice(0, 10), createdAt };
  });
}

t.test('retention keeps 7 daily, 4 weekly and 12 monthly backups', async (t) => {
  const year = daily(400);
  const all = retainedBackups(year, { daily: true, weekly: true, monthly: true });
  const dailyOnly = retainedBackups(year, { daily: true, weekly: false, monthly: false });
  t.same([...dailyOnly].sort(), ['2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23']);
  // 2026-11-23 is a Monday: the newest of each of the 4 newest ISO weeks.
  t.same([...retainedBackups(year, { daily: false, weekly: true, monthly: false })].sort(), ['2026-11-08', '2026-11-15', '2026-11-22', '2026-11-23']);
  const monthly = [...retainedBackups(year, { daily: false, weekly: false, monthly: true })].sort();
  t.equal(monthly.length, 12);
  t.same(monthly.slice(-3), ['2026-09-30', '2026-10-31', '2026-11-23'], 'the newest of each month');
  t.equal(monthly[0], '2025-12-31');
  t.equal(all.size, new Set([...dailyOnly, ...monthly, '2026-11-08', '2026-11-15', '2026-11-22']).size, 'the union of the tiers');
  t.equal(retainedBackups(year, { daily: false, weekly: false, monthly: false }).size, 0, 'no tier keeps nothing');
});

t.test('retention over a short history keeps everything it has', async (t) => {
  t.equal(retainedBackups(daily(3), { daily: true, weekly: true, monthly: true }).size, 3);
  t.equal(retainedBackups([], { daily: true, weekly: true, monthly: true }).size, 0);
});
