import t from 'tap';
import type { DueOutcome } from '../../src/processes/job/job-due.js';
import { requireCaddy } from '../helpers/caddy.js';
import { deploy, deployEnv, outcome } from '../helpers/deploy.js';
import { removeProjectLeftovers, requireDocker } from '../helpers/docker.js';
import { allEvents } from '../helpers/http-suite-server.js';
import { rebuildEquals } from '../helpers/rebuild-check.js';
import { createKey, createProject, createService, databaseService, testWebService } from '../helpers/http-resources.js';
import { actingAt, active, dueAfter, ended, forJob, logOf, runsOf, schedulerOn, schedulerProcess, slipway, waitForRun, type Run } from '../helpers/jobs.js';
import { waitFor } from '../helpers/net.js';
import { startTestServer } from '../helpers/test-server.js';

t.test('scheduled jobs: the API, run now, and the scheduler driven by test clocks', { skip: (await requireDocker()) || requireCaddy() }, async (t) => {
  const { env } = await deployEnv();
  const s = await startTestServer(env);
  t.teardown(() => s.close());
  // Time is driven by the schedulers below; the server's own would act only at real due times.
  await s.app.jobScheduler!.stop();
  const p = await createProject(s, 'Jobs');
  t.teardown(() => removeProjectLeftovers(p.id));
  const other = await createProject(s, 'Elsewhere');
  const web = await createService(s, p.id, testWebService('web'));
  const db = await createService(s, p.id, databaseService('db', 'postgres'));
  const { done } = await deploy(s, web.id);
  t.equal(outcome(done), 'succeeded', 'the service runs a release');

  const create = (body: Record<string, unknown>, serviceId = web.id, key?: string) => s.call('POST', `/api/services/${serviceId}/jobs`, { body, ...(key ? { key } : {}) });

  await t.test('input is checked at the edge, naming the field', async (t) => {
    for (const [body, field] of [
      [{ name: 'x', schedule: '61 * * * *', command: 'true' }, 'schedule'],
      [{ name: 'x', schedule: '@reboot', command: 'true' }, 'schedule'],
      [{ name: 'x', schedule: '0 9 * * *', timezone: 'Mars/Olympus', command: 'true' }, 'timezone'],
      [{ name: 'x', schedule: '0 9 * * *', command: '' }, 'command'],
      [{ name: 'x', schedule: '0 9 * * *', command: 'true', concurrency: 'sometimes' }, 'concurrency'],
      [{ name: 'x', schedule: '0 9 * * *', command: 'true', timeoutSeconds: 0 }, 'timeoutSeconds'],
      [{ schedule: '0 9 * * *', command: 'true' }, 'name'],
    ] as const) {
      const r = await create(body);
      t.equal(r.status, 400, `${field}: 400`);
      t.match(r.body, { error: { code: 'validation_failed', details: [{ path: field }] } });
    }
    const onDb = await create({ name: 'x', schedule: '0 9 * * *', command: 'true' }, db.id);
    t.equal(onDb.status, 409, 'a database service has no jobs');
    t.match(onDb.body.error.message, /database service/);
  });

  const made = await create({ name: 'Report', schedule: '0 12 * * 1', timezone: 'Europe/Berlin', command: 'echo "report for $GREETING"; echo to-stderr >&2; exit 3' });
  t.equal(made.status, 200);
  const job = made.body.job;
  t.match(job, { serviceId: web.id, name: 'Report', schedule: '0 12 * * 1', timezone: 'Europe/Berlin', timeoutSeconds: 3600, concurrency: 'forbid', enabled: true, lastRun: null });
  t.equal(new Date(job.nextRunAt).getUTCDay(), 1, 'the next due time is a Monday');
  t.match(job.nextRunAt, /T1[01]:00:00\.000Z$/, 'noon in Berlin is 10:00 or 11:00 UTC');
  const dup = await create({ name: 'report', schedule: '0 9 * * *', command: 'true' });
  t.equal(dup.status, 409, 'names are unique in a service, whatever their case');

  await t.test('PATCH changes what it names, checked like a creation', async (t) => {
    const other = (await create({ name: 'other', schedule: '0 9 * * *', command: ['true'] })).body.job;
    const patch = (body: unknown) => s.call('PATCH', `/api/jobs/${other.id}`, { body });
    t.match((await patch({ schedule: 'not cron' })).body, { error: { code: 'validation_failed', details: [{ path: 'schedule' }] } });
    t.match((await patch({ timezone: 'Nowhere/Else' })).body, { error: { code: 'validation_failed', details: [{ path: 'timezone' }] } });
    t.equal((await patch({})).status, 400, 'an empty change is refused');
    t.equal((await patch({ name: 'REPORT' })).status, 409, 'another job’s name, whatever its case');
    const renamed = await patch({ name: 'renamed', schedule: '@hourly', enabled: false });
    t.equal(renamed.status, 200);
    t.match(renamed.body.job, { name: 'renamed', schedule: '@hourly', enabled: false, nextRunAt: null, command: ['true'] });
    t.equal((await create({ name: 'other', schedule: '0 9 * * *', command: 'true' })).status, 200, 'the old name is free again');
    const again = (await s.call('GET', `/api/services/${web.id}/jobs`)).body.jobs.find((j: { name: string }) => j.name === 'other');
    t.equal((await s.call('DELETE', `/api/jobs/${again.id}`)).status, 200);
    t.equal((await s.call('DELETE', `/api/jobs/${again.id}`)).status, 404, 'a second delete is 404');
    t.equal((await s.call('DELETE', `/api/jobs/${other.id}`)).status, 200);
  });

  await t.test('keys: read keys and viewers cannot write, another project’s key sees nothing', async (t) => {
    const reader = await createKey(s, 'read', [p.id]);
    const outsider = await createKey(s, 'write', [other.id]);
    t.equal((await s.call('GET', `/api/jobs/${job.id}`, { key: reader.secret })).status, 200, 'a read key reads');
    t.equal((await create({ name: 'y', schedule: '0 9 * * *', command: 'true' }, web.id, reader.secret)).status, 403, 'a read key cannot create');
    t.equal((await s.call('POST', `/api/jobs/${job.id}/runs`, { key: reader.secret })).status, 403, 'nor run one now');
    t.equal((await s.call('PATCH', `/api/jobs/${job.id}`, { key: reader.secret, body: { enabled: false } })).status, 403);
    for (const [method, path] of [
      ['GET', `/api/jobs/${job.id}`],
      ['GET', `/api/jobs/${job.id}/runs`],
      ['GET', `/api/services/${web.id}/jobs`],
      ['POST', `/api/jobs/${job.id}/runs`],
      ['DELETE', `/api/jobs/${job.id}`],
    ] as const) {
      const r = await s.call(method, path, { key: outsider.secret });
      t.equal(r.status, 404, `another project's key: ${method} ${path} is 404`);
    }
  });

  await t.test('run now: output, exit code and duration, and the job shows it as its last run', async (t) => {
    const r = await s.call('POST', `/api/jobs/${job.id}/runs`);
    t.equal(r.status, 200);
    t.match(r.body.run, { jobId: job.id, jobName: 'Report', trigger: 'manual', dueAt: null, command: ['sh', '-c', /report for/] });
    const run = await waitForRun(s, r.body.run.id, (x) => ended(x.status), 'the manual run to end');
    t.match(run, { status: 'failed', exitCode: 3 });
    t.ok(run.durationMs !== null && run.durationMs >= 0, `its duration (${run.durationMs} ms)`);
    const log = await logOf(s, run.id);
    t.ok(log.some((l) => l.startsWith('report for')) && log.includes('to-stderr'), 'its output in its log');
    t.match((await s.call('GET', `/api/jobs/${job.id}`)).body.job.lastRun, { id: run.id, status: 'failed' });
  });

  await t.test('the CLI: create, list, run now (its output and exit code), runs, rm', async (t) => {
    const created = await slipway(s, 'jobs', 'create', 'jobs/web', '--name', 'cli-job', '--schedule', '0 4 * * *', '--timezone', 'Asia/Tokyo', '--', 'sh', '-c', 'echo from the cli; echo oops >&2; exit 5');
    t.equal(created.status, 0, created.stderr);
    t.match(created.stdout, /created job cli-job/);
    const bad = await slipway(s, 'jobs', 'create', 'jobs/web', '--name', 'bad', '--schedule', 'every day', '--', 'true');
    t.equal(bad.status, 1);
    t.match(bad.stderr, /schedule.*validation_failed/);
    const listed = await slipway(s, 'jobs', 'jobs/web');
    t.equal(listed.status, 0);
    t.match(listed.stdout, /cli-job\s+0 4 \* \* \*\s+Asia\/Tokyo/);
    const ran = await slipway(s, 'jobs', 'run', 'jobs/web/cli-job');
    t.equal(ran.status, 5, `the command's exit code is the CLI's (${ran.stderr})`);
    t.match(ran.stdout, /^from the cli$/m, 'its stdout on stdout');
    t.match(ran.stderr, /^oops$/m, 'its stderr on stderr');
    const runs = await slipway(s, 'jobs', 'runs', 'jobs/web/cli-job');
    t.match(runs.stdout, /manual\s+failed\s+5/);
    const removed = await slipway(s, 'jobs', 'rm', 'jobs/web/cli-job');
    t.equal(removed.status, 0, removed.stderr);
    t.match((await slipway(s, 'jobs', 'jobs/web')).stdout, /^(?![\s\S]*cli-job)/, 'gone from the list');
  });

  const schedulerAt = (clock: { now: number }) => schedulerOn(s, clock);

  await t.test('two schedulers on one store request one run per due time', async (t) => {
    const twice = await create({ name: 'twice', schedule: '30 4 * * *', command: 'echo once', concurrency: 'allow' });
    const due = dueAfter('30 4 * * *', Date.now());
    // Planned before the due time, as two running schedulers would have been.
    const clock = { now: due - 1000 };
    const [a, b] = [schedulerAt(clock), schedulerAt(clock)];
    await Promise.all([a.tick(), b.tick()]);
    clock.now = due + 150;
    const outcomes = forJob((await Promise.all([a.tick(), b.tick()])).flat(), twice.body.job.id);
    t.equal(outcomes.length, 2, 'both acted on the due time');
    t.same(outcomes.map((o) => ('created' in o ? o.created : null)).sort(), [false, true], 'one recorded it; the other found it recorded');
    await waitFor('the run listed', () => runsOf(s, twice.body.job.id), (runs) => runs.length > 0);
    const runs = await runsOf(s, twice.body.job.id);
    t.equal(runs.length, 1, 'one run');
    t.match(runs[0], { trigger: 'schedule', dueAt: new Date(due).toISOString(), lateMs: 150 });
    t.same(forJob(await a.tick(), twice.body.job.id), [], 'nothing more is due');
    await Promise.all([a.stop(), b.stop()]);
  });

  await t.test('a job’s time zone: 09:00 in Kolkata is due at 03:30 UTC, not at 09:00 UTC', async (t) => {
    const zoned = await create({ name: 'zoned', schedule: '0 9 * * *', timezone: 'Asia/Kolkata', command: 'echo namaste', concurrency: 'allow' });
    const jobId = zoned.body.job.id as string;
    const due = dueAfter('30 3 * * *', Date.now()); // Kolkata keeps UTC+05:30 all year
    t.equal(zoned.body.job.nextRunAt, new Date(due).toISOString(), 'its next run, in UTC');
    const { scheduler, clock, outcomes } = await actingAt(s, due, 100);
    t.match(forJob(outcomes, jobId), [{ kind: 'requested', created: true }], 'due at 03:30 UTC');
    const run = await waitFor('the zoned run', () => runsOf(s, jobId), (r) => r.length > 0);
    t.match(run[0], { trigger: 'schedule', dueAt: new Date(due).toISOString() });
    clock.now = due + 5.5 * 60 * 60_000 + 100;
    t.same(forJob(await scheduler.tick(), jobId), [], 'nothing at 09:00 UTC');
    await scheduler.stop();
  });

  await t.test('two processes with a scheduler each, on one Postgres store, request one run per due time', { skip: s.app.config.databaseUrl ? false : 'the store is PGlite (TEST_DATABASE_URL unset): one process only' }, async (t) => {
    const shared = await create({ name: 'shared', schedule: '40 5 * * *', command: 'echo shared', concurrency: 'allow' });
    const jobId = shared.body.job.id as string;
    const due = dueAfter('40 5 * * *', Date.now());
    // Started one after the other (each opens the store, whose set-up statements need not race), then let go at once.
    const processes: ReturnType<typeof schedulerProcess>[] = [];
    for (let i = 0; i < 2; i++) {
      const started = schedulerProcess(s, due - 1000, due + 200);
      t.teardown(() => void started.child.kill());
      processes.push(started);
      await waitFor(`process ${i + 1} planned`, async () => started.output(), (o) => o.includes('planned'), 60_000);
    }
    for (const p of processes) p.child.stdin.write('go\n');
    t.same(await Promise.all(processes.map((p) => p.exited)), [0, 0]);
    const outcomes = processes.flatMap((p) => p.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as DueOutcome)).filter((o) => o.jobId === jobId);
    t.equal(outcomes.length, 2, 'each process acted on the due time');
    t.same(outcomes.map((o) => ('created' in o ? o.created : null)).sort(), [false, true], 'one recorded it, the other found it recorded');
    const runs = await waitFor('the run listed', () => runsOf(s, jobId), (r) => r.length > 0);
    t.equal(runs.length, 1, 'one run');
    t.equal(runs[0]!.dueAt, new Date(due).toISOString());
  });

  await t.test('a restart after missed due times runs the latest once, late', async (t) => {
    const missed = await create({ name: 'missed', schedule: '*/5 * * * *', command: 'echo missed', concurrency: 'allow' });
    // Its first due time after its creation: none before it counts as missed.
    const first = dueAfter('*/5 * * * *', Date.parse(missed.body.job.createdAt));
    const clock = { now: first - 1000 };
    const before = schedulerAt(clock);
    await before.tick();
    clock.now = first + 10;
    t.match(forJob(await before.tick(), missed.body.job.id), [{ kind: 'requested', created: true }], 'the first due time runs');
    await before.stop();
    // Down for 23 minutes: four due times missed.
    const restarted = schedulerAt({ now: first + 23 * 60_000 });
    const outcomes = forJob(await restarted.tick(), missed.body.job.id);
    t.equal(outcomes.length, 1, 'one due time acted on at start');
    t.match(outcomes, [{ kind: 'requested', created: true }], 'one run at start');
    await restarted.stop();
    const late = new Date(first + 20 * 60_000).toISOString();
    const runs = await waitFor('the late run listed', () => runsOf(s, missed.body.job.id), (r) => r.some((x) => x.dueAt === late));
    t.same(runs.map((r) => r.dueAt).sort(), [new Date(first).toISOString(), late], `two runs: the first due time and the latest missed one (${JSON.stringify(runs.map((r) => [r.dueAt, r.lateMs]))})`);
    t.match(runs.find((r) => r.dueAt === late), { lateMs: 3 * 60_000 }, 'the latest missed one says how late');
  });

  await t.test('forbid skips a due time while a run goes on; replace cancels it', async (t) => {
    const slow = await create({ name: 'slow', schedule: '15 2 * * *', command: 'echo started; sleep 60' });
    const jobId = slow.body.job.id;
    const d1 = dueAfter('15 2 * * *', Date.now());
    const day = 86_400_000;
    const { scheduler, clock, outcomes } = await actingAt(s, d1, 5);
    const [firstRun] = forJob(outcomes, jobId);
    t.match(firstRun, { kind: 'requested', created: true });
    const runId = (firstRun as { runId: string }).runId;
    await waitForRun(s, runId, (r) => active(r.status), 'the first run listed, queued or running');

    clock.now = d1 + day + 5;
    const [skipped] = forJob(await scheduler.tick(), jobId);
    t.match(skipped, { kind: 'skipped', created: true }, 'forbid: the next due time is skipped');
    const skip = await waitForRun(s, (skipped as { runId: string }).runId, (r) => r.status === 'skipped', 'the skip recorded');
    t.match(skip.reason, new RegExp(`${runId}.*forbid`), 'saying which run was still going');

    t.equal((await s.call('PATCH', `/api/jobs/${jobId}`, { body: { concurrency: 'replace' } })).status, 200);
    clock.now = d1 + 2 * day + 5;
    const [replacing] = forJob(await scheduler.tick(), jobId);
    t.match(replacing, { kind: 'requested', created: true, canceled: [runId] }, 'replace: the running one is canceled first');
    const canceled = await waitForRun(s, runId, (r) => ended(r.status), 'the replaced run to end');
    t.equal(canceled.status, 'canceled');
    t.match(canceled.reason, /replaced/);
    const replacement = (replacing as { runId: string }).runId;
    await waitForRun(s, replacement, (r) => active(r.status), 'the replacement listed');
    await s.call('POST', `/api/job-runs/${replacement}/cancel`);
    await waitForRun(s, replacement, (r) => ended(r.status), 'the replacement to end');
    await scheduler.stop();
  });

  await t.test('bounds: 100 jobs per service, 20 runs queued or running per service', async (t) => {
    const bounded = await createService(s, p.id, testWebService('bounded'));
    for (let i = 0; i < 100; i++) {
      const r = await create({ name: `j${i}`, schedule: '0 0 1 1 *', command: 'true', enabled: false }, bounded.id);
      if (r.status !== 200) throw new Error(`job ${i}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    const over = await create({ name: 'one-too-many', schedule: '0 0 1 1 *', command: 'true' }, bounded.id);
    t.equal(over.status, 409, 'the 101st job of a service is refused');
    t.match(over.body.error.message, /100 jobs/);

    // Runs the test clocks requested before (other jobs' due times) end first: the bound counts every run of the service.
    await waitFor('no run of the service waiting or running', async () => (await s.call('GET', `/api/services/${web.id}/runs?limit=200`)).body.runs as Run[], (runs) => !runs.some((r) => active(r.status)), 120_000);
    const sleeper = (await create({ name: 'sleeper', schedule: '0 0 1 1 *', command: 'sleep 300', enabled: false })).body.job;
    const queued: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await s.call('POST', `/api/jobs/${sleeper.id}/runs`);
      t.equal(r.status, 200, `run now ${i + 1}`);
      queued.push(r.body.run.id);
    }
    const refused = await s.call('POST', `/api/jobs/${sleeper.id}/runs`);
    t.equal(refused.status, 409, 'the 21st run waiting or running in the service is refused');
    t.match(refused.body.error.message, /20 runs queued or running/);
    for (const id of queued) await s.call('POST', `/api/job-runs/${id}/cancel`);
    for (const id of queued) await waitForRun(s, id, (r) => ended(r.status), `run ${id} to end`);
    t.equal((await s.call('DELETE', `/api/jobs/${sleeper.id}`)).status, 200);
    t.equal((await s.call('DELETE', `/api/services/${bounded.id}`)).status, 200);
  });

  await t.test('a stopped service’s jobs do not run', async (t) => {
    t.equal((await s.call('POST', `/api/services/${web.id}/stop`)).status, 200);
    const idle = await create({ name: 'idle', schedule: '45 3 * * *', command: 'true' });
    t.equal(idle.body.job.nextRunAt, null, 'no next run while the service is stopped');
    const due = dueAfter('45 3 * * *', Date.now());
    const { scheduler, outcomes } = await actingAt(s, due, 5);
    t.match(forJob(outcomes, idle.body.job.id), [{ kind: 'not-run', why: /stopped/ }]);
    t.same(await runsOf(s, idle.body.job.id), [], 'no run recorded');
    t.equal((await s.call('POST', `/api/jobs/${idle.body.job.id}/runs`)).status, 409, 'nor can it be run now');
    await scheduler.stop();
  });

  await t.test('the read models rebuilt from the log equal the live ones (jobs and their runs included)', async (t) => {
    const live = (await s.app.db.query('select count(*)::int as n from rm_jobs')).rows[0] as { n: number };
    t.ok(live.n >= 5, `jobs to compare (${live.n})`);
    await rebuildEquals(t, s);
  });

  await t.test('a deleted service’s jobs go with it, deleted because of the deletion', async (t) => {
    await s.app.jobScheduler!.stop();
    const webJobStreams = new Set(((await s.call('GET', `/api/services/${web.id}/jobs`)).body.jobs as { id: string }[]).map((j) => `job-${j.id}`));
    const jobsOfWeb = webJobStreams.size;
    const del = await s.call('DELETE', `/api/services/${web.id}`);
    t.equal(del.status, 200);
    t.equal((await s.call('GET', `/api/jobs/${job.id}`)).status, 404, 'the job is gone at once');
    // The server's scheduler (its timer stopped) still follows the log; a fresh one's reconcile finds nothing left.
    await schedulerAt({ now: Date.now() }).reconcile();
    const events = (await waitFor('JobDeleted for every job', () => allEvents(s), (all) => all.filter((e) => e.type === 'JobDeleted' && webJobStreams.has(e.streamId)).length >= jobsOfWeb)) as unknown as {
      id: string; type: string; streamId: string; causationId: string | null; data: { reason?: string };
    }[];
    const deletion = events.find((e) => e.type === 'ServiceDeleted' && e.streamId === `service-${web.id}`)!;
    const jobDeletions = events.filter((e) => e.type === 'JobDeleted' && webJobStreams.has(e.streamId));
    t.equal(jobDeletions.length, jobsOfWeb, 'one JobDeleted per job of the service');
    t.ok(jobDeletions.every((e) => e.data.reason === 'service-deleted'), 'each saying why');
    t.ok(jobDeletions.every((e) => e.causationId === deletion.id), 'caused by the ServiceDeleted event');
  });
});
