/**
 * Folded aggregate states by stream. Events never change, so a state at revision r stays true and a
 * load only reads what came after it. Least recently used entries go first.
 */
export class AggregateStateCache {
  private readonly entries = new Map<string, { state: unknown; revision: number }>();

  constructor(private readonly capacity = 2000) {}

  get<S>(streamId: string): { state: S; revision: number } | undefined {
    const entry = this.entries.get(streamId);
    if (!entry) return undefined;
    this.entries.delete(streamId);
    this.entries.set(streamId, entry);
    return entry as { state: S; revision: number };
  }

  /** Forgets a state that may not be true (an append it assumed was refused). */
  delete(streamId: string): void {
    this.entries.delete(streamId);
  }

  set(streamId: string, state: unknown, revision: number): void {
    this.entries.delete(streamId);
    this.entries.set(streamId, { state, revision });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
