import type { components } from '../../shared/api-types.js';
import { answer, apiClient, CliError, type Api } from './client.js';
import { readEvents } from './event-stream.js';
import { endProgress, out, progress, table, when } from './output.js';
import { print, type Output } from './resources.js';
import { findService } from './resolve.js';
import { UsageError } from './usage-error.js';

type JobRun = components['schemas']['JobRun'];
type RunLine = components['schemas']['JobRunLogLine'];

const RECONNECTS = 5;
/** The exit status of a run that never ended by itself: `timeout`'s for a timeout, Ctrl-C's for a cancel. */
const TIMED_OUT = 124;
const CANCELED = 130;

/** One word after `--` runs through the image's shell (`"npm run migrate && npm run seed"`); several run as argv. */
export const commandOf = (words: readonly string[]): string | string[] => (words.length === 1 ? words[0]! : [...words]);

/** The status `slipway run` exits with: the command's own exit code, or one that says how it ended otherwise. */
export function exitStatusOf(run: Pick<JobRun, 'status' | 'exitCode'>): number {
  if (run.status === 'succeeded') return 0;
  if (run.status === 'timed_out') return TIMED_OUT;
  if (run.status === 'canceled') return CANCELED;
  return run.exitCode !== null && run.exitCode > 0 ? Math.min(run.exitCode, 255) : 1;
}

/**
 * Runs a one-off command in a container of the service's current release: streams its output (stdout to stdout,
 * stderr and Slipway's own lines to stderr) and exits with the command's exit code. Ctrl-C cancels the run (its
 * container is stopped); a second Ctrl-C stops following and leaves it to end on its own.
 */
export async function runCommand(serviceRef: string, words: readonly string[], o: { json?: boolean; timeout?: string; project?: string }): Promise<number> {
  if (words.length === 0) throw new UsageError('say what to run after --, e.g. slipway run shop/web -- npm run migrate');
  const timeoutSeconds = o.timeout === undefined ? undefined : Number(o.timeout);
  if (timeoutSeconds !== undefined && !(Number.isInteger(timeoutSeconds) && timeoutSeconds > 0)) throw new UsageError('--timeout is a whole number of seconds');
  const { api } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const { run: queued } = await answer(
    api.POST('/api/services/{serviceId}/runs', { params: { path: { serviceId: service.id } }, body: { command: commandOf(words), ...(timeoutSeconds ? { timeoutSeconds } : {}) } }),
  );
  return followToExit(api, queued, o, `run ${queued.id} of ${service.slug}`);
}

/**
 * Follows a queued run to its end (`slipway run`, `slipway jobs run`): its output as it comes, then the exit
 * status `exitStatusOf` gives. Ctrl-C cancels the run; a second Ctrl-C stops following.
 */
export async function followToExit(api: Api, queued: JobRun, o: { json?: boolean }, what: string): Promise<number> {
  if (o.json) out(JSON.stringify({ run: queued }));
  else progress(`${what} queued; waiting for its output…`);
  const stop = new AbortController();
  let interrupted = 0;
  const onInterrupt = () => {
    interrupted++;
    if (interrupted > 1) {
      process.stderr.write(`\nstopped following; run ${queued.id} goes on\n`);
      stop.abort();
      return;
    }
    endProgress();
    process.stderr.write(`\ncanceling run ${queued.id} (Ctrl-C again to stop following)…\n`);
    void answer(api.POST('/api/job-runs/{runId}/cancel', { params: { path: { runId: queued.id } } })).catch((error: unknown) =>
      process.stderr.write(`slipway: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  };
  process.on('SIGINT', onInterrupt);
  try {
    const end = await follow(api, queued, o, stop.signal);
    if (stop.signal.aborted) return CANCELED;
    const run = end ?? (await answer(api.GET('/api/job-runs/{runId}', { params: { path: { runId: queued.id } } }))).run;
    if (o.json) out(JSON.stringify({ run }));
    else if (run.status !== 'succeeded') process.stderr.write(`slipway: run ${run.id} ${run.status.replace('_', ' ')}${run.reason && run.status !== 'failed' ? `: ${run.reason}` : run.exitCode === null && run.reason ? `: ${run.reason}` : ''}\n`);
    return exitStatusOf(run);
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/** Prints the run's lines as they come; answers the run as its stream's end gave it (null if it did not). */
async function follow(api: Api, queued: JobRun, o: { json?: boolean }, signal: AbortSignal): Promise<JobRun | null> {
  let last = 0;
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      const body = await answer(api.GET('/api/job-runs/{runId}/stream', { params: { path: { runId: queued.id } }, parseAs: 'stream', signal }));
      if (!body) throw new CliError('the stream answered without a body');
      for await (const { event, data } of readEvents(body)) {
        if (event === 'end') return (data as { run: JobRun }).run;
        const lines = event === 'snapshot' ? (data as RunLine[]) : event === 'log' ? [data as RunLine] : [];
        for (const line of lines.filter((l) => l.id > last)) {
          if (last === 0 && !o.json) endProgress();
          last = line.id;
          if (o.json) out(JSON.stringify({ event: 'log', data: line }));
          else if (line.stream === 'stdout') out(line.line);
          else process.stderr.write(`${line.line}\n`);
        }
      }
      return null;
    } catch (error) {
      if (signal.aborted) return null;
      if (error instanceof CliError || attempt >= RECONNECTS) throw error;
      progress(`the output stream broke (${error instanceof Error ? error.message : String(error)}); reconnecting…`);
      await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
    }
  }
  return null;
}

const took = (r: JobRun) => (r.durationMs === null ? '' : r.durationMs < 10_000 ? `${r.durationMs} ms` : `${Math.round(r.durationMs / 1000)} s`);
const COMMAND_WIDTH = 40;
const commandText = (r: JobRun) => {
  const text = r.command[0] === 'sh' && r.command[1] === '-c' && r.command.length === 3 ? r.command[2]! : r.command.join(' ');
  return text.length > COMMAND_WIDTH ? `${text.slice(0, COMMAND_WIDTH - 1)}…` : text;
};

/** The service's runs (one-off commands and job runs), newest first. */
export async function listRuns(serviceRef: string, o: Output & { project?: string; limit?: string }) {
  const { api } = apiClient();
  const service = await findService(api, serviceRef, o.project);
  const limit = o.limit === undefined ? undefined : Number(o.limit);
  const data = await answer(api.GET('/api/services/{serviceId}/runs', { params: { path: { serviceId: service.id }, query: limit ? { limit } : {} } }));
  print(o.json, data, () =>
    data.runs.length === 0
      ? `${service.slug} has run nothing yet: slipway run ${service.slug} -- COMMAND`
      : table(
          ['ID', 'TRIGGER', 'JOB', 'STATUS', 'EXIT', 'COMMAND', 'REQUESTED', 'TOOK', 'REASON'],
          data.runs.map((r) => [r.id, r.trigger, r.jobName ?? '', r.status, r.exitCode === null ? '' : String(r.exitCode), commandText(r), when(r.requestedAt), took(r), (r.reason ?? '').split('\n')[0]!]),
        ),
  );
}
