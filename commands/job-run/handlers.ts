import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { jobRun } from './aggregate.js';
import type { JobRunEnd, JobRunRequest, JobRunSkip, JobRunStart } from './events.js';

/** `created: false` (not an error): the run's stream existed already, requested or skipped by someone else. */
export interface Created {
  created: boolean;
  position: string | null;
}

/**
 * Requests a run under `runId`. The stream is created with `no_stream`: for a given id exactly one request or
 * skip is ever recorded, however many processes or retries ask (a scheduled run's id derives from its job and due time).
 */
export async function requestJobRun(cmd: CommandContext, runId: string, data: JobRunRequest): Promise<Created> {
  const { events, position } = await execute(cmd, jobRun, runId, (s) => jobRun.decide.request(s, data));
  return { created: events.length > 0, position };
}

/** Records a due time that will not run, under the id its run would have had (so it never runs later either). */
export async function skipJobRun(cmd: CommandContext, runId: string, data: JobRunSkip): Promise<Created> {
  const { events, position } = await execute(cmd, jobRun, runId, (s) => jobRun.decide.skip(s, data));
  return { created: events.length > 0, position };
}

/** Cancels a run: a queued one ends canceled, a running one is stopped by the runner. A no-op once it has ended; 404 for no such run. */
export const cancelJobRun = (cmd: CommandContext, runId: string, reason: string) => execute(cmd, jobRun, runId, (s) => jobRun.decide.cancel(s, reason));

export const loadJobRun = async (cmd: CommandContext, runId: string) => (await loadAggregate(cmd, jobRun, runId)).state;

/** What the job runner records; each is a no-op once the run has ended. */
export const jobRunSteps = {
  start: (cmd: CommandContext, runId: string, start: JobRunStart) => execute(cmd, jobRun, runId, (s) => jobRun.decide.start(s, start)),
  finish: (cmd: CommandContext, runId: string, end: JobRunEnd) => execute(cmd, jobRun, runId, (s) => jobRun.decide.finish(s, end)),
};
