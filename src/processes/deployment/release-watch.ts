import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerRuntime } from '../../runtime/container-runtime.js';
import { probe } from '../health/health-probes.js';
import { gateCheckOf } from './runs/readiness.js';
import { containerEnd } from './toolkit/service-resources.js';
import type { ReleaseWatch } from './toolkit/run-outcome.js';

const LAST_LINES = 10;

/** The end of a container's output, for a reason that says what the app said before it died. */
async function lastLines(runtime: ContainerRuntime, name: string): Promise<string> {
  const lines: string[] = [];
  try {
    for await (const l of runtime.logs(name, { tail: LAST_LINES, follow: false })) lines.push(l.line);
  } catch {
    // A container removed meanwhile has no output to show.
  }
  return lines.length > 0 ? `; its last output:\n${lines.join('\n')}` : '; it wrote nothing';
}

/**
 * Watches a release that just went live for `windowMs`: resolves with what went wrong (the container exited
 * or was restarted, or failed its health check `retries` times in a row), or null when it stayed well for the
 * whole window or the watch was called off (`signal`).
 */
export async function watchRelease(runtime: ContainerRuntime, watch: ReleaseWatch, windowMs: number, intervalMs: number, signal: AbortSignal): Promise<string | null> {
  const { containerName: name, row } = watch;
  const check = gateCheckOf(row);
  const until = Date.now() + windowMs;
  // Its start lies shortly before the watch: the engine's events from then tell how it ended.
  const watchedSince = Date.now() - 60_000;
  let failed = 0;
  while (Date.now() < until && !signal.aborted) {
    await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return null;
    const state = await runtime.inspect(name, null).catch(() => undefined);
    if (state === undefined) continue; // the engine did not answer this time; the next look decides
    if (state === null) return 'its container disappeared';
    if (!state.running || state.restarts > 0) {
      const code = state.exitCode ?? (await runtime.lastExit(name, watchedSince).catch(() => null));
      const how = containerEnd({ exitCode: code, oomKilled: state.oomKilled }, watch.resources);
      return `its container ${how}${state.restarts > 0 ? ` (Docker restarted it ${state.restarts}×)` : ''}${await lastLines(runtime, name)}`;
    }
    if (check !== null) {
      const result = await probe(runtime, { check, container: name, address: state.address, defaultPort: row.internal_port });
      failed = result.ok ? 0 : failed + 1;
      // At least three: one slow answer of a release that serves is no reason to put the old one back.
      if (failed >= Math.max(check.retries, 3)) return `its ${check.type} health check failed ${failed} times in a row (${result.detail})`;
    }
  }
  return null;
}
