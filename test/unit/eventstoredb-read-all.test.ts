import { START, UnavailableError, UnknownError, type AllStreamResolvedEvent, type ReadPosition } from '@eventstore/db-client';
import t from 'tap';
import { readAllAfter, type AllReader } from '../../src/eventstore/eventstoredb-read-all.js';
import { CLAIM_TYPE } from '../../src/eventstore/eventstoredb-records.js';
import { encodePosition } from '../../src/eventstore/position.js';

// $all as EventStoreDB holds it: Slipway events, system events and id claims, at byte offsets.
function record(streamId: string, type: string, offset: number): AllStreamResolvedEvent {
  const position = { commit: BigInt(offset), prepare: BigInt(offset) };
  return {
    event: {
      streamId,
      id: `id-${offset}`,
      revision: 0n,
      type,
      created: new Date(0),
      data: { offset },
      metadata: { schemaVersion: 1, actor: 't', correlationId: 'c', causationId: null },
      isJson: true,
      position,
    },
    commitPosition: position.commit,
  };
}
const at = (offset: number) => encodePosition(BigInt(offset), BigInt(offset));

/**
 * A forward read starts at the record whose offset is `fromPosition` or, like a server that does not check,
 * at the next one; `reject` makes the server refuse positions that are not a record's.
 */
function fakeLog(records: AllStreamResolvedEvent[], reject?: Error): AllReader & { reads: number } {
  const fake = {
    reads: 0,
    readAll({ fromPosition, maxCount }: { fromPosition: ReadPosition; maxCount: number }) {
      fake.reads++;
      const offset = (r: AllStreamResolvedEvent) => r.event!.position.commit;
      const start =
        fromPosition === START
          ? 0
          : fromPosition === 'end'
            ? records.length
            : records.findIndex((r) => offset(r) >= fromPosition.commit);
      const exact = fromPosition === START || fromPosition === 'end' || records.some((r) => offset(r) === fromPosition.commit);
      return (async function* () {
        if (reject && !exact) throw reject;
        yield* records.slice(start < 0 ? records.length : start, (start < 0 ? records.length : start) + maxCount);
      })();
    },
  };
  return fake;
}

const log = [
  record('project-1', 'ProjectCreated', 100),
  record('$stats-1', '$statsCollected', 200),
  record('slipway-eventid-x', CLAIM_TYPE, 300),
  record('project-1', 'ProjectUpdated', 400),
  record('service-2', 'ServiceCreated', 500),
];
const offsets = (events: { data: Record<string, unknown> }[]) => events.map((e) => e.data.offset);

t.test('reads Slipway events only, in order, from the start or after a position', async (t) => {
  const reader = fakeLog(log);
  t.same(offsets(await readAllAfter(reader, null, 10)), [100, 400, 500], 'no system events, no claims');
  t.same(offsets(await readAllAfter(reader, null, 2)), [100, 400], 'maxCount counts Slipway events');
  t.same(offsets(await readAllAfter(reader, at(100), 10)), [400, 500], 'after is exclusive');
  t.same(offsets(await readAllAfter(reader, at(400), 1)), [500]);
  t.same(await readAllAfter(reader, at(500), 10), [], 'after the last event: nothing yet');
  t.same(await readAllAfter(fakeLog([]), null, 10), [], 'an empty store');
});

t.test('reads on past a full page of system events', async (t) => {
  const noisy = [record('a-1', 'A', 10), ...Array.from({ length: 7 }, (_, i) => record('$s', '$stat', 20 + i)), record('a-1', 'B', 90)];
  const reader = fakeLog(noisy);
  t.same(offsets(await readAllAfter(reader, at(10), 2)), [90]);
  t.ok(reader.reads > 1, 'several pages were read');
});

t.test('a position that is not in this store is an error, never the end', async (t) => {
  const reader = fakeLog(log);
  await t.rejects(readAllAfter(reader, at(450), 10), { name: 'RangeError', message: `position ${at(450)} is not in this store` }, 'between two records');
  await t.rejects(readAllAfter(reader, at(9_999), 10), { name: 'RangeError', message: /is not in this store/ }, 'beyond the end');
  await t.rejects(readAllAfter(fakeLog([]), at(100), 10), { name: 'RangeError', message: /is not in this store/ }, 'in an empty store');
  await t.rejects(readAllAfter(reader, 'nonsense', 10), { name: 'RangeError', message: /not a position/ }, 'malformed');
});

t.test('a server refusing the position says so; a server that is down does not', async (t) => {
  const refused = new UnknownError(undefined, 'invalid position');
  const error = await readAllAfter(fakeLog(log, refused), at(450), 10).catch((e: unknown) => e);
  t.match(error, { name: 'RangeError', message: /is not in this store/ });
  t.equal((error as Error).cause, refused, 'the server error is the cause');
  const down = new UnavailableError(undefined, 'connection refused');
  await t.rejects(readAllAfter(fakeLog(log, down), at(450), 10), down, 'transient errors pass through');
});
