import type { EventStore, RecordedEvent } from './port.js';

export interface CatchUpOptions {
  /** Exclusive checkpoint; `null` reads from the beginning. */
  from: string | null;
  batchSize?: number;
  /** Fallback poll when no wake-up arrives (a lost NOTIFY, a reconnect). */
  pollMs?: number;
  onError?: (error: unknown) => void;
  /**
   * While this says the store sleeps, the fallback poll reads nothing: only this process writes to a store
   * that sleeps, a write wakes it and its wake-up comes.
   */
  asleep?: () => boolean;
}

export interface Subscription {
  stop(): Promise<void>;
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
  let checkpoint = options.from;
  let stopped = false;
  let wake: (() => void) | null = null;
  let pendingWake = false;

  const signal = () => {
    pendingWake = true;
    wake?.();
  };
  const unwatch = await store.watch(signal);

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

  let emptyWakes = 0;
  const loop = (async () => {
    while (!stopped) {
      const woken = pendingWake;
      pendingWake = false;
      if (!woken && options.asleep?.()) {
        await sleep(pollMs);
        continue;
      }
      try {
        const batch = await store.readAll({ after: checkpoint, maxCount: batchSize });
        if (batch.length > 0) {
          emptyWakes = 0;
          await handle(batch);
          checkpoint = batch[batch.length - 1]!.position;
          if (batch.length === batchSize) continue;
        }
        // Woken but nothing readable: another transaction still holds the horizon back, so look again soon.
        if (batch.length === 0 && woken && emptyWakes++ < 200) {
          pendingWake = true;
          await new Promise((resolve) => setTimeout(resolve, 5));
          continue;
        }
        await sleep(pollMs);
      } catch (error) {
        options.onError?.(error);
        await sleep(Math.min(pollMs, 250));
      }
    }
  })();

  return {
    get checkpoint() {
      return checkpoint;
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      await unwatch();
    },
  };
}
