import t from 'tap';
import type { JobRow } from '../../projections/job-queries.js';
import { JobPlan } from '../../src/processes/job/job-plan.js';

const at = (iso: string) => new Date(iso).getTime();
const row = (id: string, schedule: string, since: string, timezone = 'UTC'): JobRow => ({
  id, service_id: 's', name: id, schedule, timezone, command: '"true"', timeout_seconds: 60, concurrency: 'forbid', enabled: true, deleting: false,
  schedule_since: since, created_at: since, updated_at: since,
});
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

t.test('one timer: the earliest next due time of all jobs', async (t) => {
  const plan = new JobPlan();
  const now = at('2026-03-07T12:00:30Z');
  t.same(plan.replace([row('a', '*/5 * * * *', '2026-03-07T12:00:10Z'), row('b', '0 13 * * *', '2026-03-07T12:00:10Z')], now), [], 'nothing missed since they were set');
  t.equal(iso(plan.earliest()), '2026-03-07T12:05:00.000Z');
  t.same(plan.takeDue(at('2026-03-07T12:04:59Z')), [], 'not yet');
  t.same(plan.takeDue(at('2026-03-07T12:05:00.020Z')), [{ jobId: 'a', dueAt: at('2026-03-07T12:05:00Z') }]);
  t.same(plan.takeDue(at('2026-03-07T12:05:00.040Z')), [], 'taken once');
  t.equal(iso(plan.earliest()), '2026-03-07T12:10:00.000Z');
  // The timer came 12 minutes late (a suspended machine): the latest due time, once.
  t.same(plan.takeDue(at('2026-03-07T12:22:00Z')), [{ jobId: 'a', dueAt: at('2026-03-07T12:20:00Z') }]);
});

t.test('at start, the latest missed due time of each job, once, within 24 hours and after its schedule was set', async (t) => {
  const plan = new JobPlan();
  const now = at('2026-03-07T12:00:30Z');
  const due = plan.replace(
    [
      row('minutely', '* * * * *', '2026-03-07T10:00:00Z'),
      row('daily', '0 3 * * *', '2026-03-01T00:00:00Z'),
      row('weekly-old', '0 3 * * 1', '2026-01-01T00:00:00Z'),
      row('changed', '0 11 * * *', '2026-03-07T11:30:00Z'),
    ],
    now,
  );
  t.same(due, [
    { jobId: 'minutely', dueAt: at('2026-03-07T12:00:00Z') },
    { jobId: 'daily', dueAt: at('2026-03-07T03:00:00Z') },
  ], 'weekly-old: its last due time is days back; changed: due before its schedule was set');
  t.same(plan.replace([row('minutely', '* * * * *', '2026-03-07T10:00:00Z')], now + 1000), [], 'a job planned already is not due again; the others left the plan');
  t.equal(plan.size, 1);
});

t.test('a jump of the wall clock plans every job from the new time', async (t) => {
  const plan = new JobPlan();
  plan.replace([row('hourly', '0 * * * *', '2026-03-07T00:00:00Z')], at('2026-03-07T12:10:00Z'));
  t.equal(iso(plan.earliest()), '2026-03-07T13:00:00.000Z');
  t.same(plan.rebase(at('2026-03-07T09:30:00Z')), [], 'back three hours: nothing due');
  t.equal(iso(plan.earliest()), '2026-03-07T10:00:00.000Z', 'the next due time from the new time');
  t.same(plan.rebase(at('2026-03-07T15:30:00Z')), [{ jobId: 'hourly', dueAt: at('2026-03-07T15:00:00Z') }], 'forward: the latest skipped one is due');
  t.equal(iso(plan.earliest()), '2026-03-07T16:00:00.000Z');
});
