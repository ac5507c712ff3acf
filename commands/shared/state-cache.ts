/** An aggregate's state after the event at `revision` (whose id is `lastEventId`; null before the first). */
export interface Snapshot<S> {
  state: S;
  revision: number;
  lastEventId: string | null;
}

interface Entry {
  /** The latest state known to be in the log: events never change, so it stays true. */
  written: Snapshot<unknown> | null;
  /** The state once the appends handed over are written: what the next command in line decides on. */
  tip: Snapshot<unknown>;
}

/**
 * Folded aggregate states by stream, least recently used going first. A load starts from the written
 * state and reads only what came after it; a command in line decides on the tip, and its expected tip
 * refuses the append if an assumed append was not the one written.
 */
export class AggregateStateCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity = 2000) {}

  written<S>(streamId: string): Snapshot<S> | undefined {
    return (this.touch(streamId)?.written ?? undefined) as Snapshot<S> | undefined;
  }

  tip<S>(streamId: string): Snapshot<S> | undefined {
    return this.touch(streamId)?.tip as Snapshot<S> | undefined;
  }

  /** A state read from the log (or an append of it confirmed): it only ever moves forward. */
  confirm(streamId: string, snapshot: Snapshot<unknown>): void {
    const entry = this.entries.get(streamId);
    if (entry?.written && entry.written.revision >= snapshot.revision) return;
    const tip = entry && entry.tip.revision > snapshot.revision ? entry.tip : snapshot;
    this.put(streamId, { written: snapshot, tip });
  }

  /** The state an append just handed over will make. */
  assume(streamId: string, snapshot: Snapshot<unknown>): void {
    this.put(streamId, { written: this.entries.get(streamId)?.written ?? null, tip: snapshot });
  }

  /** Forgets a stream whose assumed state may not be true (an append refused, or already made before). */
  delete(streamId: string): void {
    this.entries.delete(streamId);
  }

  private touch(streamId: string): Entry | undefined {
    const entry = this.entries.get(streamId);
    if (entry) this.put(streamId, entry);
    return entry;
  }

  private put(streamId: string, entry: Entry): void {
    this.entries.delete(streamId);
    this.entries.set(streamId, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
