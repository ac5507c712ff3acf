import { END, eventTypeFilter, type AllStreamResolvedEvent, type Filter, type Position, type ReadPosition } from '@eventstore/db-client';
import { USER_EVENT_TYPES } from './eventstoredb-records.js';

/** What `watchAll` uses of a live `$all` subscription. */
export interface LiveSubscription {
  on(event: 'data', listener: (resolved: AllStreamResolvedEvent) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'confirmation' | 'end', listener: () => void): unknown;
  unsubscribe(): Promise<void>;
}

/** The part of the EventStoreDB client that watching `$all` needs. */
export interface AllSubscriber {
  subscribeToAll(options: { fromPosition: ReadPosition; filter: Filter }): LiveSubscription;
}

export interface WatchOptions {
  /** Wait before the first resubscription; doubles on each failure in a row, up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Calls `onWake` for every Slipway event appended to `$all` while it runs. A subscription that fails or
 * ends is replaced, after a growing delay, by one from the last event seen; once that one is confirmed the
 * reader is woken too, so what was appended while none was listening is read at once, not at the next poll.
 */
export function watchAll(client: AllSubscriber, onWake: () => void, options: WatchOptions = {}): () => Promise<void> {
  const firstDelayMs = options.firstDelayMs ?? 100;
  const maxDelayMs = options.maxDelayMs ?? 5000;
  const filter = eventTypeFilter({ regex: USER_EVENT_TYPES });
  let delay = firstDelayMs;
  let lastSeen: Position | null = null;
  let current: LiveSubscription | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  // Set by a failure: the next confirmed subscription wakes the reader, which reads what came meanwhile.
  let missedSome = false;

  const subscribe = () => {
    timer = null;
    if (stopped) return;
    const subscription = client.subscribeToAll({ fromPosition: lastSeen ?? END, filter });
    current = subscription;
    const live = () => !stopped && current === subscription;
    const failed = (error: unknown) => {
      if (!live()) return;
      current = null;
      missedSome = true;
      options.onError?.(error);
      subscription.unsubscribe().catch(() => undefined);
      timer = setTimeout(subscribe, delay);
      delay = Math.min(delay * 2, maxDelayMs);
    };
    subscription.on('confirmation', () => {
      if (!live()) return;
      delay = firstDelayMs;
      if (missedSome) onWake();
      missedSome = false;
    });
    subscription.on('data', (resolved) => {
      if (!live()) return;
      delay = firstDelayMs;
      lastSeen = resolved.event?.position ?? lastSeen;
      onWake();
    });
    subscription.on('error', failed);
    subscription.on('end', () => failed(new Error('the $all subscription ended')));
  };
  subscribe();

  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const last = current;
    current = null;
    await last?.unsubscribe().catch(() => undefined);
  };
}
