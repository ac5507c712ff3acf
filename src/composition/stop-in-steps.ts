import type { Logger } from '../logger.js';

/** A stop step slower than this is named in the log: a shutdown that hangs says on what. */
const SLOW_STEP_MS = 10_000;

/** Runs the steps of a shutdown one after another, warning about any step that takes longer than it should. */
export async function stopInSteps(log: Logger, steps: [name: string, stop: () => unknown][]): Promise<void> {
  for (const [name, stop] of steps) {
    const slow = setTimeout(() => log.warn('stopping: still waiting on a step', { step: name, afterMs: SLOW_STEP_MS }), SLOW_STEP_MS);
    slow.unref();
    try {
      await stop();
    } finally {
      clearTimeout(slow);
    }
  }
}
