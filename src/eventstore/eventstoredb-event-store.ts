import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  type AppendExpectedRevision,
} from '@eventstore/db-client';
import { KeyedTurns } from './keyed-turns.js';
import { claimEventIds } from './eventstoredb-event-ids.js';
import { readAllAfter } from './eventstoredb-read-all.js';
import { fromEsdbPosition, toRecorded, type SlipwayEvent } from './eventstoredb-records.js';
import { watchAll } from './eventstoredb-watch.js';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
} from './port.js';

function toExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(typeof expected === 'object' ? expected.revision : expected);
}

const toPayload = (e: NewEvent) =>
  jsonEvent<SlipwayEvent>({
    id: e.id,
    type: e.type,
    data: e.data,
    metadata: {
      ...e.metadata,
      schemaVersion: e.schemaVersion,
      $correlationId: e.metadata.correlationId,
      ...(e.metadata.causationId ? { $causationId: e.metadata.causationId } : {}),
    },
  });

export async function createEventStoreDbEventStore(connectionString: string): Promise<EventStore> {
  const client = EventStoreDBClient.connectionString`${connectionString}`;

  async function readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const out: RecordedEvent[] = [];
    try {
      const read = client.readStream(streamId, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision === undefined ? (backwards ? END : START) : BigInt(options.fromRevision),
        ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
      });
      for await (const resolved of read) {
        const event = toRecorded(resolved);
        if (event) out.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  const lastRevision = async (streamId: string) => (await readStream(streamId, { direction: 'backwards', maxCount: 1 }))[0]?.revision ?? -1;

  /** The result of an earlier append of exactly these events to this stream, if there was one. */
  async function earlierAppend(streamId: string, events: NewEvent[]): Promise<AppendResult | null> {
    const recorded = await readStream(streamId);
    const first = recorded.findIndex((e) => e.id === events[0]!.id);
    if (first < 0 || !events.every((e, i) => recorded[first + i]?.id === e.id)) return null;
    const last = recorded[first + events.length - 1]!;
    return { nextRevision: last.revision, position: last.position, duplicate: true };
  }

  /**
   * EventStoreDB checks only the revision. Events never change, so the event at the expected revision being
   * the expected one, checked before an append that expects that revision, holds at the append too.
   */
  async function tipHolds(streamId: string, expected: ExpectedRevision): Promise<boolean> {
    if (typeof expected !== 'object') return true;
    const [event] = await readStream(streamId, { fromRevision: expected.revision, maxCount: 1 });
    return event?.revision === expected.revision && event.id === expected.lastEventId;
  }

  /** Appends to one stream run one after another, so an append that expects an earlier one's tip finds it written. */
  const turns = new KeyedTurns();

  async function conflict(streamId: string, expected: ExpectedRevision): Promise<WrongExpectedRevisionError> {
    const actual = await lastRevision(streamId);
    return new WrongExpectedRevisionError(streamId, expected, actual < 0 ? 'no_stream' : actual);
  }

  async function append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('append needs at least one event');
    return turns.run(streamId, () => appendInTurn(streamId, events, expected));
  }

  async function appendInTurn(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const claims = await claimEventIds(client, streamId, events.map((e) => e.id));
    if (claims.elsewhere.length > 0) throw await conflict(streamId, expected);
    // EventStoreDB's own idempotency holds only for the same expected revision (and is best effort with `any`).
    if (claims.allClaimedBefore) {
      const earlier = await earlierAppend(streamId, events);
      if (earlier) return earlier;
    }
    if (!(await tipHolds(streamId, expected))) throw await conflict(streamId, expected);
    try {
      const result = await client.appendToStream(streamId, events.map(toPayload), { expectedRevision: toExpected(expected) });
      const position = result.position ?? { commit: 0n, prepare: 0n };
      return { nextRevision: Number(result.nextExpectedRevision), position: fromEsdbPosition(position) };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      throw await conflict(streamId, expected);
    }
  }

  return {
    kind: 'eventstoredb',
    append,
    readStream,
    readAll: ({ after, maxCount }: ReadAllOptions) => readAllAfter(client, after, maxCount),
    watch: async (onWake) => watchAll(client, onWake),
    close: () => client.dispose(),
  };
}
