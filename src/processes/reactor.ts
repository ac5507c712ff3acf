import type { RecordedEvent } from '../eventstore/port.js';

/**
 * A process manager as the log sees it. It follows `$all` from its own checkpoint (stored in the
 * database, table `pm_checkpoints`), so an event reaches it however it was applied (live, rebuild,
 * another process); an in-memory wake-up only makes that sooner.
 */
export interface Reactor {
  /** Stable: the name of its checkpoint row. */
  readonly name: string;
  /**
   * Events after the checkpoint, in log order, once every read model includes them. Must be idempotent:
   * after a crash the batch since the last stored checkpoint is handled again.
   */
  handle(batch: readonly RecordedEvent[]): Promise<void>;
  /** Repairs from state what the log alone cannot (a lost run, a failed append); runs at start and periodically. */
  reconcile?(): Promise<void>;
  /** Whether time alone has made reconcile work due (a schedule): a sleeping store is woken for it. */
  dueWhileAsleep?(): boolean;
}
