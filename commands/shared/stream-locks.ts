/**
 * Runs one command at a time per stream in this process. Concurrent requests on one aggregate then queue
 * instead of losing the optimistic-concurrency race and deciding again; other writers (another process,
 * raw SQL) are still caught by the expected revision.
 */
export class StreamLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(streamId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(streamId) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.catch(() => undefined);
    this.tails.set(streamId, tail);
    void tail.then(() => {
      if (this.tails.get(streamId) === tail) this.tails.delete(streamId);
    });
    return result;
  }
}
