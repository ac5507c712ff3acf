import { setTimeout as sleep } from 'node:timers/promises';
import type { OutputLine } from '../../../runtime/container-runtime.js';
import { dockerTimeKey } from '../../../runtime/docker-time.js';
import type { DeploymentLog } from './deployment-log.js';
import type { RunDeps } from './run-deps.js';

/** How long the output of a container that exited is read on before the deployment fails without the rest. */
export const STARTUP_DRAIN_MS = 3_000;
/** The most lines the read after the stream may add: what an app wrote in the instant the stream lagged. */
const CATCH_UP_LINES = 1_000;

/**
 * Copies the container's output into the deployment log until stopped. `stop(drainMs)` first waits (at most
 * `drainMs`) for the output to end by itself, as the output of an exited container does: its last lines, the
 * crash message most often, arrive after the exit was seen. Then it reads once more what the engine has that
 * the stream had not brought yet: an app that answers its first probe at once has written its first lines,
 * but the stream may not have carried them that far.
 */
export function followStartup(deps: RunDeps, name: string, log: DeploymentLog) {
  const controller = new AbortController();
  let lastKey: string | null = null;
  const write = (l: OutputLine) => {
    const key = l.time ? dockerTimeKey(l.time) : null;
    // `since` is inclusive: the last line written comes again.
    if (key && lastKey && key <= lastKey) return;
    if (key) lastKey = key;
    log.write(l.line, l.stream);
  };
  const done = (async () => {
    for await (const l of deps.runtime.logs(name, { follow: true, signal: controller.signal })) write(l);
  })().catch(() => undefined);
  return async (drainMs = 0) => {
    if (drainMs > 0) await Promise.race([done, sleep(drainMs)]);
    controller.abort();
    await done;
    try {
      for await (const l of deps.runtime.logs(name, { follow: false, tail: CATCH_UP_LINES, ...(lastKey ? { since: lastKey } : {}) })) write(l);
    } catch {
      // The container is gone: what the stream brought is all there is.
    }
  };
}
