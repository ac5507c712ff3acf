import { createHook } from 'node:async_hooks';

interface Tracked {
  resource: { hasRef?: () => boolean };
  stack: string;
}

/** Each timer alive now, with where it was made: `process.getActiveResourcesInfo()` only says "Timeout". */
const timers = new Map<number, Tracked>();

createHook({
  init(id, type, _trigger, resource) {
    if (type === 'Timeout') timers.set(id, { resource: resource as Tracked['resource'], stack: new Error().stack ?? '' });
  },
  destroy(id) {
    timers.delete(id);
  },
}).enable();

/** Where the timers that keep this process alive (not unref'd) were made: a few frames of each. */
export function heldByTimers(): string[] {
  return [...timers.values()].filter((t) => t.resource.hasRef?.() ?? true).map((t) => t.stack.split('\n').slice(2, 9).join('\n'));
}
