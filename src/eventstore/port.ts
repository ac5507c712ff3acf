/**
 * The stream's last event must still be `lastEventId`, at `revision`. A command decided on a state that
 * assumes appends not yet written expects this: the revision alone would also match when another writer's
 * events happened to number as many as the assumed ones.
 */
export interface ExpectedTip {
  revision: number;
  lastEventId: string;
}

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number | ExpectedTip;

/** How an expectation reads in a message. */
export const describeExpected = (expected: ExpectedRevision) =>
  typeof expected === 'object' ? `${expected.revision} (event ${expected.lastEventId})` : String(expected);

export interface EventMetadata {
  actor: string;
  correlationId: string;
  causationId: string | null;
}

export interface NewEvent {
  id: string;
  type: string;
  schemaVersion: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

export interface RecordedEvent extends NewEvent {
  streamId: string;
  /** 0-based position inside the stream, as in EventStoreDB. */
  revision: number;
  /** Global position: opaque, compares correctly as text. */
  position: string;
  recordedAt: string;
}

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextRevision: number;
  /** Global position of the last appended event. */
  position: string;
  /** The events were already in the stream (an earlier append of the same ids): nothing was appended now. */
  duplicate?: boolean;
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Inclusive start; for backwards reads the highest revision to return. */
  fromRevision?: number;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events after this position. `null` starts at the beginning. */
  after: string | null;
  maxCount: number;
}

export interface EventStore {
  readonly kind: 'postgres' | 'eventstoredb';
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Returns [] when the stream does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events of every stream in global order; never returns an event that could still be overtaken. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** The event with this id, in whichever stream it is; where the store can look an id up directly. */
  findEvent?(eventId: string): Promise<RecordedEvent | null>;
  /** How many events the store holds, where that is cheap to know (progress reports). */
  countAll?(): Promise<number>;
  /** Calls `onWake` when new events may be readable; returns the function that stops it. */
  watch(onWake: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${describeExpected(expected)}, actual ${String(actual)}`);
  }
}
