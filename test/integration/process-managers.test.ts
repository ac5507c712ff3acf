import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { ALL_PROJECTORS } from '../../projections/all.js';
import { ProjectionRunner } from '../../projections/runner.js';
import type { SqlClient } from '../../src/db/sql-client.js';
import type { EventStore, NewEvent, RecordedEvent } from '../../src/eventstore/port.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import { createLogger } from '../../src/logger.js';
import type { BackupDeps } from '../../src/processes/backup/backup-target.js';
import { BackupScheduler } from '../../src/processes/backup/backup-scheduler.js';
import { ProcessManagers } from '../../src/processes/process-managers.js';
import type { Reactor } from '../../src/processes/reactor.js';
import { createProject, createService } from '../helpers/api-suite.js';
import { deploymentOf } from '../helpers/deploy.js';
import { eventually } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';
import { seededPglite } from '../helpers/pglite-template.js';

const event = (n: number): NewEvent => ({
  id: randomUUID(),
  type: 'ProjectCreated',
  schemaVersion: 1,
  data: { name: `P${n}`, slug: `p-${n}-${randomUUID().slice(0, 8)}`, description: '' },
  metadata: { actor: 'test', correlationId: randomUUID(), causationId: null },
});

/** Remembers every event it is handed; `failTimes` batches are refused first. */
function recorder(name: string, failTimes = 0) {
  const seen: string[] = [];
  let failures = 0;
  const reactor: Reactor = {
    name,
    async handle(batch: readonly RecordedEvent[]) {
      if (failures < failTimes) {
        failures++;
        throw new Error('not now');
      }
      seen.push(...batch.map((e) => e.id));
    },
  };
  return { reactor, seen, failures: () => failures };
}

async function setup(t: Test) {
  const db = await seededPglite();
  const store = await createPostgresEventStore(db);
  const runner = new ProjectionRunner(db, store, ALL_PROJECTORS);
  await runner.start();
  t.teardown(async () => {
    await runner.stop();
    await db.close();
  });
  return { db, store, runner };
}

const managers = (db: SqlClient, store: EventStore, runner: ProjectionRunner, reactors: Reactor[]) =>
  new ProcessManagers(db, store, runner, reactors, { reconcileEveryMs: 100 }, createLogger(true));

async function appendAll(store: EventStore, events: NewEvent[]) {
  let position = '';
  for (const e of events) position = (await store.append(`project-${randomUUID()}`, [e], 'no_stream')).position;
  return position;
}

t.test('an event applied by a rebuild, not by the live runner, still reaches the process managers', async (t) => {
  const { db, store, runner } = await setup(t);
  const r = recorder('recorder');
  const pms = managers(db, store, runner, [r.reactor]);
  await pms.start();
  t.teardown(() => pms.stop());
  // The live runner stops: the events below are applied only by the rebuild's swap.
  await runner.stop();
  const events = [event(1), event(2), event(3)];
  await appendAll(store, events);
  await runner.rebuild();
  const seen = await eventually(async () => [...r.seen], (s) => s.length === 3, 10_000);
  t.same(seen, events.map((e) => e.id), 'every event, in order, without a wake-up from the runner');
});

t.test('a process manager resumes from its stored checkpoint: nothing missed, nothing handled twice', async (t) => {
  const { db, store, runner } = await setup(t);
  const first = recorder('durable');
  const pms = managers(db, store, runner, [first.reactor]);
  await pms.start();
  const before = [event(1), event(2)];
  const position = await appendAll(store, before);
  t.ok(await pms.reached(position), 'handled');
  await pms.stop();
  t.same(first.seen, before.map((e) => e.id));

  const whileStopped = [event(3), event(4)];
  const last = await appendAll(store, whileStopped);
  await runner.caughtUp();
  const second = recorder('durable');
  const fresh = recorder('newcomer');
  const again = managers(db, store, runner, [second.reactor, fresh.reactor]);
  await again.start();
  t.teardown(() => again.stop());
  t.ok(await again.reached(last), 'caught up after the restart');
  t.same(second.seen, whileStopped.map((e) => e.id), 'exactly the events appended while it was stopped');
  t.same(fresh.seen, [], 'a process manager seen for the first time starts at the head (its reconcile covers the past)');
  await again.stop();
  const { rows } = await db.query<{ name: string; position: string }>('select name, position from pm_checkpoints order by name');
  t.same(rows, [{ name: 'durable', position: last }, { name: 'newcomer', position: last }], 'checkpoints are stored in the database');
});

t.test('a process manager that fails a batch gets it again later; the others are not held back', async (t) => {
  const { db, store, runner } = await setup(t);
  const flaky = recorder('flaky', 2);
  const steady = recorder('steady');
  const pms = managers(db, store, runner, [flaky.reactor, steady.reactor]);
  await pms.start();
  t.teardown(() => pms.stop());
  const events = [event(1), event(2)];
  await appendAll(store, events);
  await eventually(async () => steady.seen.length, (n) => n === 2, 5_000);
  t.same(steady.seen, events.map((e) => e.id), 'the steady one went on');
  t.equal(flaky.seen.length, 0, 'while the flaky one had not yet handled them');
  const seen = await eventually(async () => [...flaky.seen], (s) => s.length === 2, 10_000);
  t.same(seen, events.map((e) => e.id), 'after two refusals it got them, once');
  t.equal(flaky.failures(), 2);
});

t.test('an event a process manager keeps failing on is parked after bounded tries; the events around it are handled', async (t) => {
  const { db, store, runner } = await setup(t);
  const events = [event(1), event(2), event(3)];
  const poison = events[1]!.id;
  const seen: string[] = [];
  const picky: Reactor = {
    name: 'picky',
    async handle(batch) {
      if (batch.some((e) => e.id === poison)) throw new Error('cannot handle this one');
      seen.push(...batch.map((e) => e.id));
    },
  };
  const pms = managers(db, store, runner, [picky]);
  await pms.start();
  t.teardown(() => pms.stop());
  const last = await appendAll(store, events);
  t.ok(await pms.reached(last, 60_000), 'it got past the poison event');
  t.same(seen, [events[0]!.id, events[2]!.id], 'the events before and after it were handled');
  const { rows } = await db.query<{ projector: string; event_id: string; error: string }>('select projector, event_id, error from proj_parked');
  t.same(rows, [{ projector: 'process-manager:picky', event_id: poison, error: 'Error: cannot handle this one' }], 'parked, visibly');
});

t.test('the deployer ends a deployment left running with no live run (a lost final append)', async (t) => {
  const s = await startTestServer({ SLIPWAY_RECONCILE_INTERVAL: '0.2' });
  t.teardown(() => s.close());
  const p = await createProject(s, 'Orphans');
  const svc = await createService(s, p.id, { name: 'web', repoFullName: 'acme/web', branch: 'main' });
  const id = randomUUID();
  const meta = { actor: 'test', correlationId: randomUUID(), causationId: null };
  // What a run leaves when it started and then could not record its end.
  const queued = { id: randomUUID(), type: 'DeploymentQueued', schemaVersion: 1, data: { serviceId: svc.id, projectId: p.id, trigger: 'manual' }, metadata: meta };
  await s.app.store.append(`deployment-${id}`, [queued, { id: randomUUID(), type: 'DeploymentStarted', schemaVersion: 1, data: {}, metadata: meta }], 'no_stream');
  const ended = await eventually(() => deploymentOf(s, svc.id, id), (d) => d?.status === 'failed', 10_000);
  t.match(ended, { status: 'failed', reason: /lost track of this run/ });
  const history = (await s.call('GET', `/api/events?correlationId=${meta.correlationId}`)).body.events as { type: string; causationId: string | null; actor: string }[];
  t.match(history.find((e) => e.type === 'DeploymentFailed'), { causationId: queued.id, actor: 'system:deployer' }, 'caused by the DeploymentQueued event, in the same story');
});

t.test('while the store sleeps, reconcile runs only when a reactor says time has made work due', async (t) => {
  const { db, store, runner } = await setup(t);
  let asleep = false;
  const sleepy: SqlClient = { ...db, asleep: () => asleep };
  const calls = { plain: 0, scheduled: 0 };
  let due = false;
  const plain: Reactor = { name: 'plain', handle: async () => undefined, reconcile: async () => void calls.plain++ };
  const scheduled: Reactor = { name: 'scheduled', handle: async () => undefined, reconcile: async () => void calls.scheduled++, dueWhileAsleep: () => due };
  const pms = new ProcessManagers(sleepy, store, runner, [plain, scheduled], { reconcileEveryMs: 50 }, createLogger(true));
  await pms.start();
  t.teardown(() => pms.stop());
  await eventually(async () => calls.plain, (n) => n >= 3, 5_000);
  asleep = true;
  await new Promise((r) => setTimeout(r, 100));
  const before = { ...calls };
  await new Promise((r) => setTimeout(r, 500));
  t.same(calls, before, 'ten ticks while asleep: no reconcile');
  due = true;
  await eventually(async () => calls.scheduled, (n) => n > before.scheduled, 5_000);
  t.ok(calls.plain > before.plain, 'a reactor due wakes one pass of every reconcile');
});

t.test('the backup scheduler is due while the store sleeps exactly when its hour brings a new day', async (t) => {
  const { db } = await setup(t);
  let clock = new Date('2026-11-23T02:30:00Z');
  // Only the read models are read when no service has scheduled backups.
  const scheduler = new BackupScheduler({ ...({} as BackupDeps), db }, { hourUtc: 3, now: () => clock }, createLogger(true));
  t.ok(scheduler.dueWhileAsleep(), 'never reconciled: due');
  await scheduler.reconcile();
  t.notOk(scheduler.dueWhileAsleep(), 'just reconciled');
  clock = new Date('2026-11-23T02:59:59Z');
  t.notOk(scheduler.dueWhileAsleep(), 'a second before the hour');
  clock = new Date('2026-11-23T03:00:00Z');
  t.ok(scheduler.dueWhileAsleep(), 'the hour has come');
  await scheduler.reconcile();
  clock = new Date('2026-11-23T23:00:00Z');
  t.notOk(scheduler.dueWhileAsleep(), 'the rest of the day');
});
