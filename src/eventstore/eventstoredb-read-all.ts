import { ErrorType, FORWARDS, START, isCommandError, type AllStreamResolvedEvent, type Direction, type ReadPosition } from '@eventstore/db-client';
import type { RecordedEvent } from './port.js';
import { positionOf, toEsdbPosition, toRecorded } from './eventstoredb-records.js';

/** The part of the EventStoreDB client that reading `$all` needs. */
export interface AllReader {
  readAll(options: { fromPosition: ReadPosition; maxCount: number; direction: Direction }): AsyncIterable<AllStreamResolvedEvent>;
}

export const notInStore = (position: string, cause?: unknown) =>
  new RangeError(`position ${position} is not in this store`, cause === undefined ? undefined : { cause });

// Errors that say nothing about the position asked for: the read may succeed when tried again.
const TRANSIENT = new Set<string>([
  ErrorType.UNAVAILABLE,
  ErrorType.CANCELLED,
  ErrorType.DEADLINE_EXCEEDED,
  ErrorType.TIMEOUT,
  ErrorType.NOT_LEADER,
  ErrorType.ACCESS_DENIED,
]);
const rejectsPosition = (error: unknown) => error instanceof Error && isCommandError(error) && !TRANSIENT.has(error.type);

/**
 * Up to `maxCount` Slipway events after `after`. A forward read of `$all` starts AT its position, so the
 * first record must be the one `after` names: anything else (another record, none, or the server refusing
 * the position) means `after` is not a position of this store, and reading on would skip or stall.
 */
export async function readAllAfter(reader: AllReader, after: string | null, maxCount: number): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  let anchor = after;
  let from: ReadPosition = after === null ? START : toEsdbPosition(after);
  for (;;) {
    const page = maxCount + (anchor === null ? 0 : 1);
    let read = 0;
    let last: string | null = null;
    const records = reader.readAll({ fromPosition: from, maxCount: page, direction: FORWARDS })[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await records.next();
        if (next.done) break;
        const position = positionOf(next.value);
        if (read++ === 0 && anchor !== null) {
          if (position !== anchor) throw notInStore(anchor);
          continue;
        }
        last = position;
        const event = toRecorded(next.value);
        if (event) out.push(event);
        if (out.length === maxCount) return out;
      }
    } catch (error) {
      if (read === 0 && anchor !== null && rejectsPosition(error)) throw notInStore(anchor, error);
      throw error;
    } finally {
      await records.return?.();
    }
    if (read === 0 && anchor !== null) throw notInStore(anchor);
    // A short page is the end of $all; after a full one (system events and claims are not counted) read on.
    if (read < page || last === null) return out;
    anchor = last;
    from = toEsdbPosition(last);
  }
}
