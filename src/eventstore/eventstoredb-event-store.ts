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
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type JSONEventType,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
} from './port.js';
import { decodePosition, encodePosition } from './position.js';

type StoredMetadata = EventMetadata & { schemaVersion: number; $correlationId: string; $causationId?: string };
type SlipwayEvent = JSONEventType<string, Record<string, unknown>, StoredMetadata>;

function toExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  if (!event || !event.isJson || event.type.startsWith('$') || event.streamId.startsWith('$')) return null;
  const { schemaVersion, actor, correlationId, causationId } = (event.metadata ?? {}) as Partial<StoredMetadata>;
  const position = event.position ?? { commit: resolved.commitPosition ?? 0n, prepare: resolved.commitPosition ?? 0n };
  return {
    id: event.id,
    type: event.type,
    schemaVersion: schemaVersion ?? 1,
    data: event.data as Record<string, unknown>,
    metadata: { actor: actor ?? 'unknown', correlationId: correlationId ?? event.id, causationId: causationId ?? null },
    streamId: event.streamId,
    revision: Number(event.revision),
    position: encodePosition(position.commit, position.prepare),
    recordedAt: event.created.toISOString(),
  };
}

export async function createEventStoreDbEventStore(connectionString: string): Promise<EventStore> {
  const client = EventStoreDBClient.connectionString`${connectionString}`;

  async function append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const payload = events.map((e) =>
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
      }),
    );
    try {
      const result = await client.appendToStream(streamId, payload, { expectedRevision: toExpected(expected) });
      const position = result.position ?? { commit: 0n, prepare: 0n };
      return { nextRevision: Number(result.nextExpectedRevision), position: encodePosition(position.commit, position.prepare) };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion === NO_STREAM ? 'no_stream' : Number(error.actualVersion);
        throw new WrongExpectedRevisionError(streamId, expected, actual);
      }
      throw error;
    }
  }

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

  async function readAll({ after, maxCount }: ReadAllOptions): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    let from: ReadPosition = START;
    if (after) {
      const [commit, prepare] = decodePosition(after);
      from = { commit, prepare };
    }
    let skipFirst = after !== null;
    // $all holds system events too; keep reading until enough user events or the end.
    for (;;) {
      let seen = 0;
      let last: string | null = null;
      for await (const resolved of client.readAll({ fromPosition: from, maxCount: maxCount + 1, direction: FORWARDS })) {
        seen++;
        const position = resolved.event?.position;
        if (!position) continue;
        const encoded = encodePosition(position.commit, position.prepare);
        last = encoded;
        if (skipFirst && after !== null && encoded <= after) continue;
        const event = toRecorded(resolved);
        if (event) out.push(event);
        if (out.length >= maxCount) return out;
      }
      if (seen <= 1 || last === null || out.length > 0) return out;
      const [commit, prepare] = decodePosition(last);
      from = { commit, prepare };
      skipFirst = true;
      after = last;
    }
  }

  async function watch(onWake: () => void) {
    const subscription = client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    subscription.on('data', () => onWake());
    subscription.on('error', () => undefined);
    return async () => {
      await subscription.unsubscribe();
    };
  }

  return { kind: 'eventstoredb', append, readStream, readAll, watch, close: () => client.dispose() };
}
