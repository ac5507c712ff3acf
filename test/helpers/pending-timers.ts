import { createHook } from 'node:async_hooks';

interface Tracked {
  resource: { hasRef?: () => boolean; _repeat?: number | null };
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

const holding = () => [...timers.values()].filter((t) => t.resource.hasRef?.() ?? true);

/** Where the timers that keep this process alive (not unref'd) were made: a few frames of each. */
export function heldByTimers(): string[] {
  return holding().map((t) => `${t.resource._repeat ? 'an interval' : 'a timer'} made at\n${t.stack.split('\n').slice(2, 9).join('\n')}`);
}

/** Whether an interval keeps this process alive: unlike a timer, it never ends by itself. */
export const heldByAnInterval = () => holding().some((t) => Boolean(t.resource._repeat));
