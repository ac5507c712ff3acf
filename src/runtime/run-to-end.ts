import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerRuntime, ContainerSpec, OutputLine } from './container-runtime.js';

export interface RunToEndOptions {
  /** Every line the command writes, as it writes it. */
  onLine(line: OutputLine): void;
  /** Past this the container is stopped and the run ends `timed_out`. */
  timeoutMs: number;
  /** Fires to cancel: the container is stopped and the run ends `canceled`. */
  signal: AbortSignal;
  /** SIGTERM first, then SIGKILL after this many seconds (timeout and cancel). */
  graceSeconds: number;
  /** Lines kept for the result's `lastLines` (a failure's reason). */
  keepLines?: number;
  /**
   * Fires to stop following and leave the container running (Slipway stops): the run ends `detached`, and a
   * later `runToEnd` of the same spec follows it again or reads its end.
   */
  detach?: AbortSignal;
}

export interface RunToEndResult {
  outcome: 'exited' | 'timed_out' | 'canceled' | 'detached';
  /** The command's exit code; null when it never ended by itself. */
  exitCode: number | null;
  durationMs: number;
  /** The last lines it wrote, stdout and stderr in the order written. */
  lastLines: string[];
}

const EXIT_POLL_MS = 100;

/**
 * Starts a container that runs a command (`spec.command`, or its image's own) and follows it to its end: its
 * output line by line, then its exit code. A container of the same name that exists already is followed
 * (running), read (it ran and ended: its output and exit code, never a second run) or started (created,
 * never started), so a retried run finds its own. The container is left in place, stopped: the caller
 * removes it once it has recorded the outcome.
 */
export async function runToEnd(runtime: ContainerRuntime, spec: ContainerSpec, o: RunToEndOptions): Promise<RunToEndResult> {
  const keep = o.keepLines ?? 20;
  const lastLines: string[] = [];
  const started = Date.now();
  const follow = new AbortController();
  let ended: 'timed_out' | 'canceled' | null = null;
  const stop = (why: 'timed_out' | 'canceled') => {
    if (ended) return;
    ended = why;
    void runtime.stop(spec.name, o.graceSeconds).catch(() => undefined);
  };
  const onAbort = () => stop('canceled');
  o.signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop('timed_out'), o.timeoutMs);
  try {
    if (o.signal.aborted) return { outcome: 'canceled', exitCode: null, durationMs: 0, lastLines };
    const before = await runtime.inspect(spec.name, null);
    const ranAlready = before !== null && before.started && !before.running;
    if (!ranAlready) await runtime.run(spec);
    const output = (async () => {
      for await (const line of runtime.logs(spec.name, { follow: !ranAlready, signal: follow.signal })) {
        lastLines.push(line.line);
        if (lastLines.length > keep) lastLines.shift();
        o.onLine(line);
      }
    })();
    output.catch(() => undefined);
    // The log stream ends when the container stops; its state says how (and covers a stream that broke).
    let exitCode: number | null = null;
    const detached = o.detach ? new Promise<void>((resolve) => (o.detach!.aborted ? resolve() : o.detach!.addEventListener('abort', () => resolve(), { once: true }))) : null;
    for (;;) {
      if (o.detach?.aborted && !ended) return { outcome: 'detached', exitCode: null, durationMs: Date.now() - started, lastLines };
      const state = await runtime.inspect(spec.name, null);
      if (!state) break;
      if (!state.running) {
        exitCode = state.exitCode;
        break;
      }
      await Promise.race([output, sleep(EXIT_POLL_MS), ...(detached ? [detached] : [])]);
    }
    // Whatever the engine still holds of its output is read before the result is given.
    await Promise.race([output, sleep(2_000)]);
    follow.abort();
    const outcome = ended ?? 'exited';
    return { outcome, exitCode: outcome === 'exited' ? exitCode : null, durationMs: Date.now() - started, lastLines };
  } finally {
    clearTimeout(timer);
    follow.abort();
    o.signal.removeEventListener('abort', onAbort);
  }
}
