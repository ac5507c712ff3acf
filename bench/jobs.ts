import { nextDueAfter, parseSchedule } from '../commands/job/schedule.js';
import { createLogger } from '../src/logger.js';
import { JobScheduler } from '../src/processes/job/job-scheduler.js';
import { deploy, deployEnv } from '../test/helpers/deploy.js';
import { dockerUnavailable, removeProjectLeftovers } from '../test/helpers/docker.js';
import { createProject, createService, testWebService } from '../test/helpers/http-resources.js';
import { startTestServer, type TestServer } from '../test/helpers/test-server.js';
import { line } from './print.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (n: number) => `${Math.round(n)} ms`;

function dueOf(schedule: string, after: number) {
  const parsed = parseSchedule(schedule, 'UTC');
  if (!parsed.ok) throw new Error(parsed.message);
  return nextDueAfter(parsed.cron, after)!;
}

/** A scheduler on the server's store whose clock the bench sets. */
function schedulerOn(s: TestServer, clock: { now: number }) {
  return new JobScheduler({ cmd: s.app.commandContext('system:job-scheduler'), db: s.app.db }, { now: () => clock.now }, createLogger(true));
}

async function createJobs(s: TestServer, serviceId: string, n: number, schedule: string, command: string | string[]) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await s.call('POST', `/api/services/${serviceId}/jobs`, { body: { name: `${schedule.replace(/\W/g, '')}-${i}`, schedule, command, concurrency: 'allow' } });
    if (r.status !== 200) throw new Error(`create job: ${r.status} ${JSON.stringify(r.body)}`);
    ids.push(r.body.job.id as string);
  }
  return ids;
}

const runStatus = async (s: TestServer, runId: string) => (await s.call('GET', `/api/job-runs/${runId}`)).body.run?.status as string | undefined;

/**
 * Scheduled jobs: a due time to the command's first output line, the cost of 100 jobs due at once, and the
 * scheduler's idle CPU with 1,000 planned jobs. The due times are driven by a clock the bench sets (the
 * server's own scheduler is stopped), so nothing waits for a real minute.
 */
export async function jobBenchmarks() {
  const skip = await dockerUnavailable();
  if (skip) return line('jobs', `skipped: ${skip}`);
  const { env } = await deployEnv();
  const s = await startTestServer(env);
  const project = await createProject(s, 'Bench jobs');
  try {
    await s.app.jobScheduler!.stop();
    const web = await createService(s, project.id, testWebService('web'));
    const { done } = await deploy(s, web.id);
    if (done.status !== 'succeeded') throw new Error(`the deployment ${done.status}`);

    // Due time → first output line, with the image present.
    await createJobs(s, web.id, 1, '7 7 * * *', ['echo', 'first line']);
    const firstLine: number[] = [];
    const steps: { requested: number; started: number; line: number }[] = [];
    let due = Date.now();
    for (let i = 0; i < 5; i++) {
      due = dueOf('7 7 * * *', due);
      const clock = { now: due - 1 };
      const scheduler = schedulerOn(s, clock);
      await scheduler.tick();
      clock.now = due;
      const started = performance.now();
      const [outcome] = await scheduler.tick();
      if (outcome?.kind !== 'requested') throw new Error(`the due time was not requested: ${JSON.stringify(outcome)}`);
      for (;;) {
        const logs = (await s.call('GET', `/api/job-runs/${outcome.runId}/logs`)).body.logs as { line: string }[] | undefined;
        if (logs?.some((l) => l.line === 'first line')) break;
        await sleep(10);
      }
      firstLine.push(performance.now() - started);
      while (!['succeeded', 'failed'].includes((await runStatus(s, outcome.runId)) ?? '')) await sleep(50);
      // Where the time went, from the records' own timestamps (the wall clock; the due time is the tick's start).
      const run = (await s.call('GET', `/api/job-runs/${outcome.runId}`)).body.run as { requestedAt: string; startedAt: string };
      const first = ((await s.call('GET', `/api/job-runs/${outcome.runId}/logs`)).body.logs as { line: string; createdAt: string }[]).find((l) => l.line === 'first line')!;
      const wallStart = Date.now() - (performance.now() - started);
      steps.push({ requested: Date.parse(run.requestedAt) - wallStart, started: Date.parse(run.startedAt) - Date.parse(run.requestedAt), line: Date.parse(first.createdAt) - Date.parse(run.startedAt) });
      await scheduler.stop();
    }
    line('jobs: due time → first output line (median of 5)', `${ms(median(firstLine))} (all: ${firstLine.map(ms).join(', ')})`);
    line(
      'jobs:   due → requested / → started / → first line recorded',
      `${ms(median(steps.map((x) => x.requested)))} / ${ms(median(steps.map((x) => x.started)))} / ${ms(median(steps.map((x) => x.line)))} (medians)`,
    );

    // 100 jobs due at one minute.
    await createJobs(s, web.id, 100, '9 9 * * *', 'true');
    const due100 = dueOf('9 9 * * *', Date.now());
    const clock = { now: due100 - 1 };
    const scheduler = schedulerOn(s, clock);
    await scheduler.tick();
    clock.now = due100;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const outcomes = await scheduler.tick();
    const requestedMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const runIds = outcomes.flatMap((o) => (o.kind === 'requested' ? [o.runId] : []));
    line('jobs: 100 due at once, all requested', `${ms(requestedMs)} (${runIds.length} runs; ${ms((used.user + used.system) / 1000)} CPU in this process)`);
    let last = 0;
    for (const id of runIds) {
      while (!['succeeded', 'failed', 'timed_out', 'canceled'].includes((await runStatus(s, id)) ?? '')) await sleep(100);
      last = performance.now() - started;
    }
    line('jobs: 100 due at once, until the last run ended', `${(last / 1000).toFixed(1)} s (runs share the installation's bounded run slots)`);
    await scheduler.stop();

    // Idle: 1,000 planned jobs, the real clock, nothing due.
    await createJobs(s, web.id, 900, '11 11 1 1 *', 'true');
    const idle = new JobScheduler({ cmd: s.app.commandContext('system:job-scheduler'), db: s.app.db }, { now: Date.now }, createLogger(true));
    const window = 30_000;
    const cpuShare = async () => {
      const before = process.cpuUsage();
      const wall = performance.now();
      await sleep(window);
      const spent = process.cpuUsage(before);
      return (spent.user + spent.system) / 1000 / (performance.now() - wall);
    };
    await sleep(2000);
    const without = await cpuShare();
    await idle.tick();
    idle.start();
    await sleep(1000);
    const withScheduler = await cpuShare();
    line(
      `jobs: idle CPU, whole server, ${window / 1000} s: without a scheduler / with ${idle.plannedJobs} jobs planned`,
      `${(without * 100).toFixed(2)} % / ${(withScheduler * 100).toFixed(2)} % of a core`,
    );
    await idle.stop();
  } finally {
    await s.close();
    await removeProjectLeftovers(project.id);
  }
}
