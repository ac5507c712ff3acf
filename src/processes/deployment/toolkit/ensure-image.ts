import type { DeploymentLog } from './deployment-log.js';
import type { RunDeps } from './run-deps.js';
import { step } from './run-step.js';

/** Pulls one of the installation's own images (a database engine's) unless it is present. */
export async function ensureImage(deps: RunDeps, reference: string, log: DeploymentLog, signal: AbortSignal) {
  if (await deps.runtime.imageExists(reference)) {
    log.system(`Image ${reference} is present`);
    return;
  }
  log.system(`Pulling ${reference}`);
  await step(`pulling ${reference}`, deps.settings.timeouts.pullMs, signal, (s) => deps.runtime.pull(reference, (l) => log.write(l), s));
}
