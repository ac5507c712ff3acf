import { JOB_RUN_LOG_CATEGORY, type JobRunEnd } from '../../../commands/job-run/events.js';
import { isUnfinished, type JobRunState } from '../../../commands/job-run/aggregate.js';
import { jobRunSteps, loadJobRun } from '../../../commands/job-run/handlers.js';
import { countJobRunOutputLines, findJobRun, lastJobRunLogLine } from '../../../projections/job-run-queries.js';
import { runToEnd, type RunToEndResult } from '../../runtime/run-to-end.js';
import { ChunkedLog } from '../chunked-log.js';
import { message } from '../error-message.js';
import { recorded } from '../recorded.js';
import { JobRunRefusal, jobRunContainerOf, recipeOf, redactorOfRelease, type RecipeDeps } from './job-run-recipe.js';

export const JOB_RUNNER_ACTOR = 'system:job-runner';

export interface ExecutionDeps extends RecipeDeps {
  /** SIGTERM first, SIGKILL after this many seconds (a timeout, a cancel). */
  graceSeconds: number;
}

/** How a run is being stopped: canceled (a request, its service deleted) or left running for the next start. */
export interface RunSignals {
  cancel: AbortSignal;
  detach: AbortSignal;
}

const LAST_LINES = 20;

/** Its output, redacted, on `jobrunlog-<id>` after the lines an earlier start already stored. */
async function logOf(deps: ExecutionDeps, id: string): Promise<ChunkedLog> {
  const next = (await lastJobRunLogLine(deps.db, id)) + 1;
  return new ChunkedLog(deps.cmd.store, { streamId: `${JOB_RUN_LOG_CATEGORY}-${id}`, eventType: 'JobRunLogAppended' }, (l) => l, { actor: JOB_RUNNER_ACTOR, correlationId: deps.cmd.correlationId, causationId: null }, next);
}

/** How a run ended, as recorded: its status, exit code and a reason a person reads (the last lines of a failure). */
function endOf(result: RunToEndResult, state: JobRunState, signals: RunSignals, redact: (line: string) => string): JobRunEnd {
  const { durationMs } = result;
  if (result.outcome === 'canceled' || state.cancelRequested || signals.cancel.aborted) {
    return { status: 'canceled', exitCode: null, durationMs, reason: signals.cancel.aborted ? String(signals.cancel.reason) : 'canceled on request' };
  }
  if (result.outcome === 'timed_out') return { status: 'timed_out', exitCode: null, durationMs, reason: `stopped after its timeout of ${state.request!.timeoutSeconds} s` };
  if (result.exitCode === 0) return { status: 'succeeded', exitCode: 0, durationMs, reason: null };
  const last = result.lastLines.map(redact).join('\n');
  return { status: 'failed', exitCode: result.exitCode, durationMs, reason: `exited with code ${result.exitCode ?? 'unknown'}${last ? `:\n${last}` : ''}` };
}

/**
 * Runs one requested run to its end: `JobRunStarted` before its container starts, its output to its log, then
 * `JobRunFinished`, then the container is removed. A run a restart finds started is followed again (or its end read)
 * by the same container name, never started twice; one whose container is gone ends failed.
 */
export async function executeJobRun(deps: ExecutionDeps, id: string, signals: RunSignals): Promise<void> {
  let state = await loadJobRun(deps.cmd, id);
  if (!isUnfinished(state)) return;
  const request = state.request!;
  const log = await logOf(deps, id);
  const finish = async (end: JobRunEnd) => {
    await log.flush();
    await recorded(() => jobRunSteps.finish(deps.cmd, id, end));
  };
  const name = jobRunContainerOf(id);
  let redact: (line: string) => string = (l) => l;
  let timeoutMs = request.timeoutSeconds * 1000;
  // Lines of a resumed run that its log already holds: the engine gives its output again from the start.
  let replayed = 0;
  if (state.phase === 'queued') {
    let recipe;
    try {
      recipe = await recipeOf(deps, id, request);
    } catch (error) {
      const reason = error instanceof JobRunRefusal ? error.message : `could not prepare the run: ${message(error)}`;
      log.system(`Not run: ${reason}`);
      return finish({ status: 'failed', exitCode: null, durationMs: 0, reason });
    }
    redact = recipe.redact;
    log.setRedactor(redact);
    const { release } = recipe;
    const started = await jobRunSteps.start(deps.cmd, id, { containerName: name, releaseId: release.releaseId, releaseVersion: release.version, imageId: release.imageId });
    if (started.events.length === 0) return; // canceled (or ended) while it waited
    log.system(`Running ${JSON.stringify(request.command)} in release v${release.version} (image ${release.imageId.slice(7, 19)})`);
    return follow(deps, id, { ...recipe.spec }, { log, finish, redact, timeoutMs, replayed, signals, state: await loadJobRun(deps.cmd, id) });
  }
  // Started by an earlier process: followed again, or its end read, in its own container.
  const existing = await deps.runtime.inspect(name, null);
  if (!existing) {
    log.system('Its container is gone: Slipway stopped while it ran, and the run cannot be followed');
    return finish({ status: 'failed', exitCode: null, durationMs: 0, reason: 'its container is gone (Slipway stopped while it ran)' });
  }
  redact = await redactorOfRelease(deps, request.serviceId, state.started!.releaseId);
  log.setRedactor(redact);
  replayed = await countJobRunOutputLines(deps.db, id);
  if (state.cancelRequested && existing.running) await deps.runtime.stop(name, deps.graceSeconds).catch(() => undefined);
  const startedAt = (await findJobRun(deps.db, id))?.started_at;
  timeoutMs = Math.max(1, (startedAt ? new Date(startedAt).getTime() : Date.now()) + request.timeoutSeconds * 1000 - Date.now());
  log.system(existing.running ? 'Slipway restarted: following the run again' : 'Slipway restarted: the run had ended meanwhile');
  state = await loadJobRun(deps.cmd, id);
  // The spec only names the container here: runToEnd never starts one that has run.
  const spec = { name, image: state.started!.imageId, env: {}, labels: {}, network: '', aliases: [], internalPort: null, publish: false, command: request.command };
  return follow(deps, id, spec, { log, finish, redact, timeoutMs, replayed, signals, state });
}

interface Following {
  log: ChunkedLog;
  finish(end: JobRunEnd): Promise<void>;
  redact(line: string): string;
  timeoutMs: number;
  replayed: number;
  signals: RunSignals;
  state: JobRunState;
}

async function follow(deps: ExecutionDeps, id: string, spec: Parameters<typeof runToEnd>[1], f: Following): Promise<void> {
  let skip = f.replayed;
  const result = await runToEnd(deps.runtime, spec, {
    onLine: (line) => {
      if (skip > 0) skip--;
      else f.log.write(line.line, line.stream);
    },
    timeoutMs: f.timeoutMs,
    signal: f.signals.cancel,
    detach: f.signals.detach,
    graceSeconds: deps.graceSeconds,
    keepLines: LAST_LINES,
  }).catch(async (error: unknown) => {
    f.log.system(`The run could not be started: ${message(error)}`);
    await f.finish({ status: 'failed', exitCode: null, durationMs: 0, reason: `the container could not be started: ${message(error)}` });
    await deps.runtime.remove(spec.name, 0).catch(() => undefined);
    return null;
  });
  if (!result) return;
  if (result.outcome === 'detached') {
    await f.log.flush();
    return;
  }
  const end = endOf(result, await loadJobRun(deps.cmd, id).catch(() => f.state), f.signals, f.redact);
  f.log.system(end.status === 'succeeded' ? `Exited with code 0 after ${result.durationMs} ms` : `Ended ${end.status}${end.exitCode === null ? '' : ` (exit code ${end.exitCode})`} after ${result.durationMs} ms`);
  await f.finish(end);
  await deps.runtime.remove(spec.name, 0).catch(() => undefined);
}
