import type { EventStore, RecordedEvent } from '../eventstore/port.js';

export interface CatchUpOptions {
  /** Exclusive checkpoint; `null` reads from the beginning. */
  from: string | null;
  batchSize?: number;
  /** Fallback poll when no wake-up arrives (a lost NOTIFY, a reconnect). */
  pollMs?: number;
  /**
   * A read or a batch failed: the answer is how long to wait (stop ends the wait, a wake-up does not) before
   * the same events are read again; by default a short moment.
   */
  onError?: (error: unknown, during: 'read' | 'handle') => number | void | Promise<number | void>;
  /**
   * While this says the store sleeps, the fallback poll reads nothing: only this process writes to a store
   * that sleeps, a write wakes it and its wake-up comes.
   */
  asleep?: () => boolean;
  /** How to read after a position (a cache of what was just read, say); the store's `$all` by default. */
  read?: (after: string | null, maxCount: number) => Promise<readonly RecordedEvent[]>;
  /** The last position it may hand over (null: none yet), when another follower must get there first. */
  horizon?: () => string | null;
  /** Whether the store's own wake-ups count (a follower woken only by `wake()` says no). */
  watchStore?: boolean;
}

export interface Subscription {
  stop(): Promise<void>;
  /** Looks at the log now rather than at the next poll (it is read however the news came). */
  wake(): void;
  /** Position of the last batch handled. */
  readonly checkpoint: string | null;
}

/**
 * Reads `$all` in batches after a checkpoint and hands each batch to `handle`; when it runs dry it
 * sleeps until the store signals new events. A failing batch is retried from the same checkpoint.
 */
export async function subscribeToAll(
  store: EventStore,
  options: CatchUpOptions,
  handle: (batch: RecordedEvent[]) => Promise<void>,
): Promise<Subscription> {
  const batchSize = options.batchSize ?? 500;
  const pollMs = options.pollMs ?? 1000;
  const read = options.read ?? ((after, maxCount) => store.readAll({ after, maxCount }));
  let checkpoint = options.from;
  let stopped = false;
  let wake: (() => void) | null = null;
  let pendingWake = false;
  let stopWaiting = () => undefined as void;
  const stopping = new Promise<void>((resolve) => (stopWaiting = resolve));

  const signal = () => {
    pendingWake = true;
    wake?.();
  };
  const unwatch = options.watchStore === false ? async () => undefined : await store.watch(signal);

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (pendingWake || stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  /** Waits out a failure: only a stop ends it early. */
  const backOff = async (ms: number) => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, ms))), stopping]);
    clearTimeout(timer);
  };

  const failed = async (error: unknown, during: 'read' | 'handle') => {
    const wait = await Promise.resolve(options.onError?.(error, during)).catch(() => undefined);
    await backOff(typeof wait === 'number' ? wait : Math.min(pollMs, 250));
  };

  let emptyWakes = 0;
  const loop = (async () => {
    while (!stopped) {
      const woken = pendingWake;
      pendingWake = false;
      const horizon = options.horizon ? options.horizon() : undefined;
      if ((!woken && options.asleep?.()) || horizon === null || (horizon !== undefined && checkpoint !== null && checkpoint >= horizon)) {
        await sleep(pollMs);
        continue;
      }
      let page: readonly RecordedEvent[];
      try {
        page = await read(checkpoint, batchSize);
      } catch (error) {
        await failed(error, 'read');
        continue;
      }
      const batch = horizon === undefined ? page : page.filter((e) => e.position <= horizon);
      if (batch.length > 0) {
        emptyWakes = 0;
        try {
          await handle([...batch]);
        } catch (error) {
          await failed(error, 'handle');
          continue;
        }
        checkpoint = batch[batch.length - 1]!.position;
        if (page.length === batchSize) continue;
      }
      // Woken but nothing readable: another transaction still holds the horizon back, so look again soon.
      if (page.length === 0 && woken && emptyWakes++ < 200) {
        pendingWake = true;
        await new Promise((resolve) => setTimeout(resolve, 5));
        continue;
      }
      await sleep(pollMs);
    }
  })();

  return {
    get checkpoint() {
      return checkpoint;
    },
    wake: signal,
    async stop() {
      stopped = true;
      stopWaiting();
      wake?.();
      await loop;
      await unwatch();
    },
  };
}
