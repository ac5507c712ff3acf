import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import { subscribeToAll } from '../../src/catch-up/follow-log.js';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../../src/eventstore/port.js';
import { decodePosition, encodePosition } from '../../src/eventstore/position.js';
import { newEvent } from './new-event.js';

export { newEvent };

const conflict = { name: 'WrongExpectedRevisionError' };
const stream = (prefix: string) => `${prefix}-${randomUUID()}`;

async function readAllFrom(store: EventStore, after: string | null): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for (;;) {
    const batch = await store.readAll({ after, maxCount: 100 });
    if (batch.length === 0) return out;
    out.push(...batch);
    after = batch[batch.length - 1]!.position;
  }
}

const idsOf = (events: { id: string }[]) => events.map((e) => e.id);

async function head(store: EventStore): Promise<string | null> {
  const all = await readAllFrom(store, null);
  return all.length ? all[all.length - 1]!.position : null;
}

/**
 * The behaviour every EventStore adapter must have. `open` gives a store on a connection of its own: called
 * again, it is another client of the same store (the caller closes what it opened).
 */
export function eventStoreContract(t: Test, open: () => Promise<EventStore>) {
  let store: EventStore;
  let other: EventStore;
  t.before(async () => {
    store = await open();
    other = await open();
  });

  t.test('no_stream creates a stream once', async (t) => {
    const s = stream('c');
    const first = await store.append(s, [newEvent()], 'no_stream');
    t.equal(first.nextRevision, 0);
    await t.rejects(store.append(s, [newEvent()], 'no_stream'), conflict);
  });

  t.test('stream_exists needs the stream', async (t) => {
    const s = stream('c');
    await t.rejects(store.append(s, [newEvent()], 'stream_exists'), conflict);
    t.same(await store.readStream(s), [], 'nothing written by the refused append');
    await store.append(s, [newEvent()], 'any');
    const r = await store.append(s, [newEvent(), newEvent()], 'stream_exists');
    t.equal(r.nextRevision, 2);
  });

  t.test('numeric revision must match the last revision', async (t) => {
    const s = stream('c');
    await t.rejects(store.append(s, [newEvent()], 0), conflict, 'missing stream is not revision 0');
    await store.append(s, [newEvent(), newEvent()], 'no_stream');
    await t.rejects(store.append(s, [newEvent()], 0), conflict);
    await t.rejects(store.append(s, [newEvent()], 2), conflict);
    const ok = await store.append(s, [newEvent()], 1);
    t.equal(ok.nextRevision, 2);
    const error = await store.append(s, [newEvent()], 1).catch((e: unknown) => e);
    t.ok(error instanceof WrongExpectedRevisionError, "a typed conflict error");
    t.equal((error as WrongExpectedRevisionError).streamId, s);
  });

  t.test("an expected tip must be the stream's last event, not only its revision", async (t) => {
    const s = stream('c');
    const [a, b] = [newEvent('A'), newEvent('B')];
    await store.append(s, [a], 'no_stream');
    await t.rejects(store.append(s, [newEvent()], { revision: 0, lastEventId: b.id }), conflict, 'the right revision with another event there');
    await t.rejects(store.append(s, [newEvent()], { revision: 1, lastEventId: a.id }), conflict, 'a revision the stream has not reached');
    const ok = await store.append(s, [b], { revision: 0, lastEventId: a.id });
    t.equal(ok.nextRevision, 1);
    // Another writer's event reaches the revision a command in line expected after an append that was refused.
    await other.append(s, [newEvent('foreign')], 'any');
    const assumed = newEvent('assumed');
    await t.rejects(store.append(s, [assumed], 1), conflict, 'refused: the command decided on the stale state');
    await t.rejects(store.append(s, [newEvent()], { revision: 2, lastEventId: assumed.id }), conflict, 'refused: decided on a state that never was');
    t.same(idsOf(await store.readStream(s)).length, 3, 'nothing written by the refused appends');
  });

  t.test('an event is found by its id where the store can look ids up', async (t) => {
    if (!store.findEvent) return t.comment('this store finds events only by stream (retries look among its latest events)');
    const s = stream('c');
    const event = newEvent('found');
    await store.append(s, [newEvent(), event], 'no_stream');
    t.match(await store.findEvent(event.id), { id: event.id, streamId: s, revision: 1 });
    t.equal(await store.findEvent(newEvent().id), null, 'an unknown id');
  });

  t.test('any appends whatever the state', async (t) => {
    const s = stream('c');
    await store.append(s, [newEvent()], 'any');
    const r = await store.append(s, [newEvent()], 'any');
    t.equal(r.nextRevision, 1);
  });

  t.test('a multi-event append is one unit', async (t) => {
    const origin = await head(store);
    const s = stream('m');
    const three = [newEvent('M1'), newEvent('M2'), newEvent('M3')];
    const r = await store.append(s, three, 'no_stream');
    t.equal(r.nextRevision, 2, 'the revision of its last event');
    const two = [newEvent('M4'), newEvent('M5')];
    t.equal((await store.append(s, two, 2)).nextRevision, 4);
    const recorded = await store.readStream(s);
    t.same(recorded.map((e) => e.revision), [0, 1, 2, 3, 4]);
    t.same(idsOf(recorded), idsOf([...three, ...two]), 'in append order');
    const all = (await readAllFrom(store, origin)).filter((e) => e.streamId === s);
    t.same(idsOf(all), idsOf([...three, ...two]), '$all keeps the order inside and across appends');
    const positions = all.map((e) => e.position);
    t.ok(positions.every((p, i) => i === 0 || p > positions[i - 1]!), 'positions increase within an append');
    t.equal(all[2]!.position, r.position, 'the append returns the position of its last event');

    const refused = [newEvent('X1'), newEvent('X2')];
    await t.rejects(store.append(s, refused, 2), conflict, 'a stale revision refuses the whole append');
    t.equal((await store.readStream(s)).length, 5, 'none of its events was written');
    const after = await readAllFrom(store, origin);
    t.notOk(after.some((e) => idsOf(refused).includes(e.id)), 'nor reached $all');
    t.equal((await store.append(s, refused, 4)).nextRevision, 6, 'its ids were not used up');
  });

  t.test('concurrent appends each get their own answer: a refused one takes none of the others with it', async (t) => {
    const streams = Array.from({ length: 6 }, () => stream('g'));
    await store.append(streams[3]!, [newEvent('Existing')], 'no_stream');
    const reused = newEvent('Reused');
    await store.append(streams[4]!, [reused], 'no_stream');
    const mine = streams.map(() => newEvent('Concurrent'));
    const outcomes = await Promise.allSettled([
      store.append(streams[0]!, [mine[0]!], 'no_stream'),
      store.append(streams[1]!, [mine[1]!], 'no_stream'),
      store.append(streams[2]!, [mine[2]!, newEvent('Second')], 'any'),
      store.append(streams[3]!, [mine[3]!], 'no_stream'),
      store.append(streams[5]!, [reused], 'no_stream'),
      store.append(streams[0]!, [newEvent('Pipelined')], 0),
    ]);
    t.same(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled'],
      'a wrong revision and reused ids are refused, the rest written',
    );
    t.match(outcomes[3], { reason: conflict });
    t.match(outcomes[4], { reason: conflict });
    t.same((await store.readStream(streams[0]!)).map((e) => e.type), ['Concurrent', 'Pipelined'], 'appends to one stream keep their order');
    t.same((await store.readStream(streams[2]!)).map((e) => e.revision), [0, 1]);
    t.same((await store.readStream(streams[3]!)).map((e) => e.type), ['Existing'], 'nothing of the refused append');
    t.same(await store.readStream(streams[5]!), []);
  });

  t.test('re-appending the same event ids to the same stream returns the first result and writes nothing', async (t) => {
    const origin = await head(store);
    const s = stream('c');
    const events = [newEvent('A'), newEvent('B')];
    const first = await store.append(s, events, 'no_stream');
    t.notOk(first.duplicate, 'the first append is no duplicate');
    const again = { ...first, duplicate: true };
    t.same(await store.append(s, events, 'no_stream'), again, 'same expected revision');
    t.same(await other.append(s, events, 'no_stream'), again, 'from another client');
    t.same(await store.append(s, events, 'any'), again, 'any');
    const next = [newEvent('C')];
    const second = await store.append(s, next, 1);
    t.same(await store.append(s, next, 1), { ...second, duplicate: true }, 'a later append, numeric revision');
    t.same(await store.append(s, events, 'no_stream'), again, 'an earlier append, once the stream has moved on');
    t.same(idsOf(await store.readStream(s)), idsOf([...events, ...next]), 'no second copy in the stream');
    const all = (await readAllFrom(store, origin)).filter((e) => e.streamId === s);
    t.same(idsOf(all), idsOf([...events, ...next]), 'nor in $all');
  });

  t.test('the same event ids in another stream are refused', async (t) => {
    const s = stream('c');
    const elsewhere = stream('c');
    const events = [newEvent('A'), newEvent('B')];
    await store.append(s, events, 'no_stream');
    await t.rejects(store.append(elsewhere, events, 'no_stream'), conflict);
    await t.rejects(other.append(elsewhere, [events[1]!], 'any'), conflict, 'one of them, from another client');
    t.same(await store.readStream(elsewhere), [], 'nothing written there');
    t.same(idsOf(await store.readStream(s)), idsOf(events), 'the first stream unchanged');
  });

  t.test('reading $all after a position that is not in this store is an error, never the end', async (t) => {
    const s = stream('p');
    const { position } = await store.append(s, [newEvent('P')], 'no_stream');
    await t.resolves(store.readAll({ after: position, maxCount: 10 }), 'a real position');
    const [major, minor] = decodePosition(position);
    const between = encodePosition(major, minor + 1n);
    const beyond = encodePosition(major + 1_000_000_000n, minor + 1_000_000_000n);
    const missing = { name: 'RangeError', message: /is not in this store/ };
    await t.rejects(store.readAll({ after: between, maxCount: 10 }), missing, 'next to an event');
    await t.rejects(store.readAll({ after: beyond, maxCount: 10 }), missing, 'beyond the last event');
    await t.rejects(store.readAll({ after: 'nonsense', maxCount: 10 }), { name: 'RangeError', message: /not a position/ }, 'malformed');
  });

  t.test('watch wakes on an append from another client, and stops', async (t) => {
    let wakes = 0;
    const unwatch = await store.watch(() => wakes++);
    const s = stream('w');
    await other.append(s, [newEvent('W1')], 'no_stream');
    await waitUntil(() => wakes > 0);
    await unwatch();
    const stoppedAt = wakes;
    await other.append(s, [newEvent('W2')], 0);
    await new Promise((r) => setTimeout(r, 300));
    t.equal(wakes, stoppedAt, 'no wake-up once stopped');
  });

  t.test('subscribeToAll delivers every event exactly once, in order, across appends from two clients', async (t) => {
    const origin = await head(store);
    const seen: RecordedEvent[] = [];
    // Small batches, so multi-event appends are split across them.
    const sub = await subscribeToAll(store, { from: origin, pollMs: 50, batchSize: 7 }, async (batch) => {
      seen.push(...batch);
    });
    const lanes = ['a', 'b', 'c'].map((l) => stream(`x${l}`));
    const written: string[] = [];
    await Promise.all(
      lanes.map(async (s, lane) => {
        const client = lane === 1 ? other : store;
        for (let i = 0; i < 8; i++) {
          const events = Array.from({ length: 1 + ((i + lane) % 3) }, () => newEvent('X', { lane, i }));
          await client.append(s, events, i === 0 ? 'no_stream' : 'any');
          written.push(...idsOf(events));
        }
      }),
    );
    const mine = () => seen.filter((e) => lanes.includes(e.streamId));
    await waitUntil(() => mine().length >= written.length);
    await new Promise((r) => setTimeout(r, 150));
    await sub.stop();
    const ids = idsOf(mine());
    t.equal(ids.length, written.length, 'every event');
    t.equal(new Set(ids).size, ids.length, 'none twice');
    t.same([...ids].sort(), [...written].sort(), 'the events written');
    const log = (await readAllFrom(store, origin)).filter((e) => lanes.includes(e.streamId));
    t.same(ids, idsOf(log), 'in $all order');
    const positions = seen.map((e) => e.position);
    t.ok(positions.every((p, i) => i === 0 || p > positions[i - 1]!), 'positions strictly increase');
    for (const s of lanes) {
      const revisions = mine().filter((e) => e.streamId === s).map((e) => e.revision);
      t.same(revisions, revisions.map((_, i) => i), `${s} in revision order`);
    }
    t.equal(sub.checkpoint, seen[seen.length - 1]!.position, 'the checkpoint is the last event handled');
  });

  t.test('reads a stream forwards and backwards', async (t) => {
    const s = stream('c');
    const events = Array.from({ length: 5 }, (_, i) => newEvent('N', { i }));
    await store.append(s, events, 'no_stream');
    const all = await store.readStream(s);
    t.same(all.map((e) => e.data.i), [0, 1, 2, 3, 4]);
    t.same(all.map((e) => e.revision), [0, 1, 2, 3, 4]);
    t.equal(all[0]!.id, events[0]!.id);
    t.equal(all[0]!.streamId, s);
    t.equal(all[0]!.metadata.actor, 'test');
    t.match(all[0]!.recordedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const some = await store.readStream(s, { fromRevision: 2, maxCount: 2 });
    t.same(some.map((e) => e.revision), [2, 3]);
    const back = await store.readStream(s, { direction: 'backwards' });
    t.same(back.map((e) => e.revision), [4, 3, 2, 1, 0]);
    const lastOne = await store.readStream(s, { direction: 'backwards', maxCount: 1 });
    t.same(lastOne.map((e) => e.revision), [4]);
    const backFrom = await store.readStream(s, { direction: 'backwards', fromRevision: 1 });
    t.same(backFrom.map((e) => e.revision), [1, 0]);
    t.same(await store.readStream(stream('missing')), []);
  });

  t.test('order is numeric past ten events (streams and one big append)', async (t) => {
    const s = stream('c');
    const events = Array.from({ length: 23 }, (_, i) => newEvent('N', { i }));
    await store.append(s, events.slice(0, 12), 'no_stream');
    for (const e of events.slice(12)) await store.append(s, [e], 'any');
    const forwards = await store.readStream(s);
    t.same(forwards.map((e) => e.data.i), events.map((_, i) => i));
    const backwards = await store.readStream(s, { direction: 'backwards' });
    t.same(backwards.map((e) => e.revision), events.map((_, i) => 22 - i));
    const all = (await readAllFrom(store, null)).filter((e) => e.streamId === s);
    t.same(all.map((e) => e.data.i), events.map((_, i) => i), '$all keeps append order');
    await t.resolves(store.append(s, [newEvent()], 22), 'the last revision is 22');
  });

  t.test('$all holds every event in append order with increasing positions', async (t) => {
    const before = await readAllFrom(store, null);
    const start = before.length ? before[before.length - 1]!.position : null;
    const a = stream('a');
    const b = stream('b');
    await store.append(a, [newEvent('A1')], 'no_stream');
    await store.append(b, [newEvent('B1'), newEvent('B2')], 'no_stream');
    const r = await store.append(a, [newEvent('A2')], 0);
    const after = await readAllFrom(store, start);
    const mine = after.filter((e) => e.streamId === a || e.streamId === b);
    t.same(mine.map((e) => e.type), ['A1', 'B1', 'B2', 'A2']);
    const positions = after.map((e) => e.position);
    t.same([...positions].sort(), positions, 'text order is global order');
    t.equal(new Set(positions).size, positions.length);
    t.equal(mine[3]!.position, r.position, 'append returns the position of its last event');
  });

  t.test('a subscription resumes from its checkpoint: what was appended while it was stopped comes next', async (t) => {
    const history = await readAllFrom(store, null);
    const origin = history.length ? history[history.length - 1]!.position : null;
    const s = stream('sub');
    await store.append(s, [newEvent('S1'), newEvent('S2')], 'no_stream');

    const seen: RecordedEvent[] = [];
    let checkpoint: string | null = null;
    const first = await subscribeToAll(store, { from: origin, pollMs: 50 }, async (batch) => {
      seen.push(...batch);
    });
    await waitUntil(() => seen.some((e) => e.type === 'S2'));
    checkpoint = first.checkpoint;
    await first.stop();
    t.same(seen.filter((e) => e.streamId === s).map((e) => e.type), ['S1', 'S2']);

    await store.append(s, [newEvent('S3')], 1);
    const resumed: RecordedEvent[] = [];
    const second = await subscribeToAll(store, { from: checkpoint, pollMs: 50 }, async (batch) => {
      resumed.push(...batch);
    });
    await store.append(s, [newEvent('S4')], 2);
    await waitUntil(() => resumed.some((e) => e.type === 'S4'));
    await second.stop();
    t.same(resumed.filter((e) => e.streamId === s).map((e) => e.type), ['S3', 'S4'], 'nothing replayed, nothing missed');
  });
}

export async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
