import { spawn } from 'node:child_process';
import { nextDueAfter, parseSchedule } from '../../commands/job/schedule.js';
import { createLogger } from '../../src/logger.js';
import type { DueOutcome } from '../../src/processes/job/job-due.js';
import { JobScheduler } from '../../src/processes/job/job-scheduler.js';
import { cliArgs, root } from './cli-process.js';
import { waitFor } from './net.js';
import type { TestServer } from './test-server.js';

/** What the jobs tests read and run: runs through the API, the CLI as a person runs it, due times after now. */
export type Run = { id: string; status: string; exitCode: number | null; durationMs: number | null; dueAt: string | null; lateMs: number | null; reason: string | null; trigger: string };

export const runsOf = async (s: TestServer, jobId: string): Promise<Run[]> => (await s.call('GET', `/api/jobs/${jobId}/runs?limit=200`)).body.runs;
/** The run, or a stand-in with status `unknown` while the read model does not have it yet. */
export const runOf = async (s: TestServer, runId: string): Promise<Run> => (await s.call('GET', `/api/job-runs/${runId}`)).body.run ?? ({ id: runId, status: 'unknown' } as Run);
export const ended = (status: string) => !['queued', 'running', 'unknown'].includes(status);
export const active = (status: string) => ['queued', 'running'].includes(status);
export const waitForRun = (s: TestServer, runId: string, ok: (r: Run) => boolean, what: string, timeoutMs = 60_000) => waitFor(what, () => runOf(s, runId), ok, timeoutMs);
export const logOf = async (s: TestServer, runId: string): Promise<string[]> => ((await s.call('GET', `/api/job-runs/${runId}/logs`)).body.logs as { line: string }[]).map((l) => l.line);

/** `slipway …` as a person runs it, against the test server. */
export function slipway(s: TestServer, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: root, env: { ...process.env, SLIPWAY_URL: s.url, SLIPWAY_KEY: s.key }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
}

/** A due time of `schedule` after real now: fake clocks act there, where the real scheduler never goes during the test. */
export function dueAfter(schedule: string, from: number): number {
  const parsed = parseSchedule(schedule, 'UTC');
  if (!parsed.ok) throw new Error(parsed.message);
  return nextDueAfter(parsed.cron, from)!;
}

/** A scheduler in a process of its own on the server's Postgres store (job-scheduler-process.ts): it plans at `planAt`, acts at `actAt` once told. */
export function schedulerProcess(s: TestServer, planAt: number, actAt: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/job-scheduler-process.ts', s.app.config.databaseUrl!, s.dataDir, String(planAt), String(actAt)], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output: () => output, exited };
}

/** What a tick did for one job (a fake clock's scheduler acts on every job of the server). */
export const forJob = (outcomes: DueOutcome[], jobId: string) => outcomes.filter((o) => o.jobId === jobId);

/** A scheduler on the server's store whose time is `clock.now`: the tests drive due times with it. */
export const schedulerOn = (s: TestServer, clock: { now: number }) =>
  new JobScheduler({ cmd: s.app.commandContext('system:job-scheduler'), db: s.app.db }, { now: () => clock.now }, createLogger(true));

/** A test-clock scheduler that planned a second before `due` and acted `lateMs` after it: what it did then, and it (its clock still moves). */
export async function actingAt(s: TestServer, due: number, lateMs: number) {
  const clock = { now: due - 1000 };
  const scheduler = schedulerOn(s, clock);
  await scheduler.tick();
  clock.now = due + lateMs;
  return { scheduler, clock, outcomes: await scheduler.tick() };
}
