import { KeyedTurns } from '../../src/eventstore/keyed-turns.js';

/**
 * Runs one command at a time per stream in this process. Concurrent requests on one aggregate then queue
 * instead of losing the optimistic-concurrency race and deciding again; other writers (another process,
 * raw SQL) are still caught by the expected tip (revision and last event id).
 *
 * A command holds the lock while it decides and hands its append to the store, not while the append is
 * written: the next command decides on the state that append will make (pipelining), so appends to one
 * stream can share a transaction. Those still being written are tracked here, for whoever must read the
 * log only once they are in it.
 */
export class StreamLocks {
  private readonly turns = new KeyedTurns();
  private readonly writing = new Map<string, Set<Promise<unknown>>>();

  run<T>(streamId: string, fn: () => Promise<T>): Promise<T> {
    return this.turns.run(streamId, fn);
  }

  /** Remembers an append to `streamId` until it is written or refused. */
  track(streamId: string, append: Promise<unknown>): void {
    const set = this.writing.get(streamId) ?? new Set<Promise<unknown>>();
    this.writing.set(streamId, set);
    set.add(append);
    const done = () => {
      set.delete(append);
      if (set.size === 0 && this.writing.get(streamId) === set) this.writing.delete(streamId);
    };
    append.then(done, done);
  }

  /** Resolves once every append to `streamId` handed over so far is written or refused. */
  async written(streamId: string): Promise<void> {
    const set = this.writing.get(streamId);
    if (set) await Promise.allSettled([...set]);
  }
}
