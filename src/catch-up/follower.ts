import { reasonText } from '../../commands/shared/printable.js';
import type { SqlExecutor } from '../db/sql-client.js';
import { isDatabaseFault } from '../db/database-faults.js';
import type { EventStore, RecordedEvent } from '../eventstore/port.js';
import { subscribeToAll, type CatchUpOptions, type Subscription } from './follow-log.js';
import { parkEvent, type Parking } from './parking.js';
import { backoffMs, nextPause, type Pause } from './pause.js';
import { statusOf, type FollowerStatus } from './status.js';

/**
 * After this many failed tries of a batch (on a healthy database), a consumer that blames events gets them
 * one at a time, and an event that still fails is parked: one poison event cannot stop it for good.
 */
export const PARK_AFTER = 5;
/** A batch whose events keep failing is retried with growing waits up to this. */
const MAX_RETRY_MS = 30_000;

/** What follows the log: a projector set applying a batch in a transaction, or a process manager reacting. */
export interface Consumer {
  /** The name health shows and checkpoints are kept under. */
  readonly name: string;
  /** Consumes events after `after`, in log order. A failure leaves the follower where it was. */
  consume(events: readonly RecordedEvent[], after: string | null): Promise<void>;
  /**
   * When failures can be the events' own: which are the database's instead (those pause), and where events
   * that keep failing are parked. Absent: every failure is a fault that pauses (such a consumer parks what it
   * cannot apply itself, inside its own transaction).
   */
  blame?: { isFault(error: unknown): Promise<boolean>; db: SqlExecutor; parkAs: string };
  /** The names a fault holds back (by default the consumer's own). */
  held?(error: unknown): readonly string[];
  /** The fault as health shows it. */
  describe?(error: unknown): string;
}

/** What a follower tells its owner (to log it). */
export interface FollowerReport {
  readFailed?(error: unknown): void;
  paused?(error: unknown, first: boolean): void;
  retried?(error: unknown, failures: number): void;
  resumed?(): void;
  parked?(parking: Parking): void;
}

export interface FollowerOptions extends Omit<CatchUpOptions, 'from' | 'onError'> {
  store: EventStore;
  /** Exclusive checkpoint; null: the start of the log. */
  from: string | null;
  report?: FollowerReport;
  /** Hears of each position the consumer got past (to store a checkpoint the consumer does not store itself). */
  moved?(position: string): void;
}

/** A pause already recorded: the loop only waits it out. */
class Paused extends Error {}

/**
 * The one catch-up engine: follows `$all` from a checkpoint for one consumer, pauses with backoff on a
 * database fault (nobody blamed), retries events that fail and parks the ones that keep failing.
 */
export class Follower {
  position: string | null;
  pause: Pause | null = null;
  /** Failures in a row on a healthy database. */
  private failures = 0;
  private retryAt = 0;
  /** The pause came from reading the log: a read that succeeds ends it, whatever it found. */
  private pausedOnRead = false;
  private subscription: Subscription | null = null;

  constructor(
    private readonly consumer: Consumer,
    private readonly options: FollowerOptions,
  ) {
    this.position = options.from;
  }

  get name(): string {
    return this.consumer.name;
  }

  async start(): Promise<void> {
    const { store, report: _report, moved: _moved, read = (after, maxCount) => store.readAll({ after, maxCount }), ...follow } = this.options;
    const readAndResume = async (after: string | null, maxCount: number) => {
      const page = await read(after, maxCount);
      if (this.pausedOnRead) this.resume();
      return page;
    };
    this.subscription = await subscribeToAll(
      store,
      { ...follow, from: this.position, read: readAndResume, onError: (error, during) => this.failed(error, during) },
      (batch) => this.deliver(batch),
    );
  }

  /** Looks at the log now (a wake-up: what it must not miss it reads from the log anyway). */
  wake(): void {
    this.subscription?.wake();
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }

  get status(): FollowerStatus {
    return statusOf(this.consumer.name, this.position, this.pause);
  }

  private async deliver(batch: readonly RecordedEvent[]) {
    const events = this.position === null ? batch : batch.filter((e) => e.position > this.position!);
    if (events.length === 0) return;
    const blame = this.consumer.blame;
    if (blame && this.failures >= PARK_AFTER) return this.oneByOne(events, blame);
    await this.consumer.consume(events, this.position);
    this.failures = 0;
    this.consumed(events[events.length - 1]!.position);
  }

  private async oneByOne(events: readonly RecordedEvent[], blame: NonNullable<Consumer['blame']>) {
    for (const event of events) {
      try {
        await this.consumer.consume([event], this.position);
      } catch (error) {
        if (await blame.isFault(error)) throw this.pauseOn(error);
        const parking = { projector: blame.parkAs, event, error: String(error), attempts: this.failures };
        // Not parked, so not passed: the event is tried again once the database answers.
        await parkEvent(blame.db, parking).catch((parkError: unknown) => {
          throw this.pauseOn(parkError);
        });
        this.options.report?.parked?.(parking);
      }
      this.consumed(event.position);
    }
    this.failures = 0;
  }

  /** Decides what a failure means and how long the loop waits before the same events are read again. */
  private async failed(error: unknown, during: 'read' | 'handle'): Promise<number | void> {
    if (error instanceof Paused) return this.untilRetry();
    if (during === 'read') {
      this.options.report?.readFailed?.(error);
      if (!isDatabaseFault(error)) return;
      this.pauseOn(error);
      this.pausedOnRead = true;
      return this.untilRetry();
    }
    const blame = this.consumer.blame;
    if (!blame || (await blame.isFault(error))) {
      this.pauseOn(error);
      return this.untilRetry();
    }
    this.failures++;
    this.retryAt = Date.now() + backoffMs(this.failures, MAX_RETRY_MS);
    this.options.report?.retried?.(error, this.failures);
    return this.untilRetry();
  }

  /** Holds the consumer back without counting a try toward parking. */
  private pauseOn(error: unknown): Paused {
    this.pausedOnRead = false;
    const first = this.pause === null;
    this.options.report?.paused?.(error, first);
    const text = this.consumer.describe?.(error) ?? reasonText(String(error));
    this.pause = nextPause(this.pause, text, this.consumer.held?.(error) ?? [this.consumer.name]);
    this.retryAt = this.pause.retryAt;
    return new Paused(text);
  }

  private untilRetry(): number {
    return Math.max(0, this.retryAt - Date.now());
  }

  private resume() {
    if (this.pause) this.options.report?.resumed?.();
    this.pause = null;
    this.pausedOnRead = false;
    this.retryAt = 0;
  }

  private consumed(position: string) {
    this.resume();
    this.position = position;
    this.options.moved?.(position);
  }
}
