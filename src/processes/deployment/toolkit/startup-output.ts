import { setTimeout as sleep } from 'node:timers/promises';
import type { DeploymentLog } from './deployment-log.js';
import type { RunDeps } from './run-deps.js';

/** How long the output of a container that exited is read on before the deployment fails without the rest. */
export const STARTUP_DRAIN_MS = 3_000;

/**
 * Copies the container's output into the deployment log until stopped. `stop(drainMs)` first waits (at most
 * `drainMs`) for the output to end by itself, as the output of an exited container does: its last lines, the
 * crash message most often, arrive after the exit was seen.
 */
export function followStartup(deps: RunDeps, name: string, log: DeploymentLog) {
  const controller = new AbortController();
  const done = (async () => {
    for await (const l of deps.runtime.logs(name, { follow: true, signal: controller.signal })) log.write(l.line, l.stream);
  })().catch(() => undefined);
  return async (drainMs = 0) => {
    if (drainMs > 0) await Promise.race([done, sleep(drainMs)]);
    controller.abort();
    await done;
  };
}
