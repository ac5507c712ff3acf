import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import t, { type Test } from 'tap';
import { openPglite } from '../../src/db/pglite-client.js';
import { openPostgres } from '../../src/db/pg-client.js';
import type { SqlClient } from '../../src/db/sql-client.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import type { AppendResult, EventStore, ExpectedRevision, NewEvent } from '../../src/eventstore/port.js';
import { newEvent } from '../helpers/event-store-contract.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { seedPgliteDir } from '../helpers/pglite-template.js';

const conflict = { name: 'WrongExpectedRevisionError' };
let streams = 0;
const stream = () => `idem-${process.pid}-${++streams}-${Date.now()}`;

/** `writers` are stores that append at the same time (on the Postgres server, each on its own connections). */
function idempotentAppends(t: Test, open: () => Promise<{ writers: EventStore[]; sql: SqlClient }>) {
  let writers: EventStore[];
  let sql: SqlClient;
  t.before(async () => ({ writers, sql } = await open()));
  const first = () => writers[0]!;

  async function storedCount(streamId: string): Promise<number> {
    const { rows } = await sql.query<{ n: number }>('select count(*)::int as n from es_events where stream_id = $1', [streamId]);
    return rows[0]!.n;
  }

  /** The same append from every writer at once, `rounds` times on fresh streams: every writer gets the first's result. */
  async function race(t: Test, label: string, prepare: (s: string) => Promise<ExpectedRevision>, rounds = 25) {
    let mismatches = 0;
    let failures = 0;
    for (let round = 0; round < rounds; round++) {
      const s = stream();
      const expected = await prepare(s);
      const events: NewEvent[] = [newEvent('Raced', { round }), newEvent('Raced', { round })];
      const before = await storedCount(s);
      const settled = await Promise.allSettled([...writers, ...writers].map((w) => w.append(s, events, expected)));
      const results = settled.filter((r): r is PromiseFulfilledResult<AppendResult> => r.status === 'fulfilled').map((r) => r.value);
      failures += settled.length - results.length;
      if (results.some((r) => r.position !== results[0]!.position || r.nextRevision !== results[0]!.nextRevision)) mismatches++;
      if ((await storedCount(s)) !== before + events.length) mismatches++;
    }
    t.equal(failures, 0, `${label}: no append of the same events fails`);
    t.equal(mismatches, 0, `${label}: all get one result, and the events are stored once`);
  }

  t.test('the same append twice: the second returns the first’s result', async (t) => {
    const s = stream();
    const events = [newEvent(), newEvent()];
    const one = await first().append(s, events, 'no_stream');
    const two = await first().append(s, events, 'no_stream');
    t.same(two, { ...one, duplicate: true }, 'same revision and position, said to be a duplicate');
    const more = [newEvent()];
    const three = await first().append(s, more, 1);
    t.same(await first().append(s, more, 1), { ...three, duplicate: true }, 'with a numeric revision that is stale by then');
    t.same(await first().append(s, more, 'any'), { ...three, duplicate: true }, 'with any');
    t.equal(await storedCount(s), 3, 'each event once');
  });

  t.test('real conflicts stay conflicts', async (t) => {
    const s = stream();
    const events = [newEvent(), newEvent()];
    await first().append(s, events, 'no_stream');
    await t.rejects(first().append(s, [events[0]!, newEvent()], 'any'), conflict, 'some of the ids, not all');
    await t.rejects(first().append(stream(), events, 'any'), conflict, 'the ids in another stream');
    await t.rejects(first().append(s, [newEvent()], 'no_stream'), conflict, 'other events, stale expectation');
    const fresh = stream();
    const settled = await Promise.allSettled(writers.map((w) => w.append(fresh, [newEvent()], 'no_stream')));
    t.equal(settled.filter((r) => r.status === 'fulfilled').length, 1, 'of two different creations at once, one wins');
    t.ok(
      settled.every((r) => r.status === 'fulfilled' || (r.reason as Error).name === 'WrongExpectedRevisionError'),
      'the other gets a revision conflict',
    );
  });

  t.test('the same append at the same moment', async (t) => {
    await race(t, 'creating a stream', async () => 'no_stream');
    await race(t, 'at a numeric revision', async (s) => {
      await first().append(s, [newEvent()], 'no_stream');
      return 0;
    });
    await race(t, 'at any revision', async () => 'any');
  });
}

t.test('PGlite', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-idem-'));
  let sql: SqlClient | undefined;
  t.teardown(async () => {
    await sql?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // One connection: "at the same moment" is interleaved through the one client.
  idempotentAppends(t, async () => {
    await seedPgliteDir(join(dir, 'pg'));
    sql = await openPglite(join(dir, 'pg'));
    const store = await createPostgresEventStore(sql);
    return { writers: [store, store], sql };
  });
});

const skip = requirePostgresServer();
t.test('Postgres server', { skip }, async (t) => {
  if (!serverUrl) return;
  const db = await freshDatabase(serverUrl);
  const clients: SqlClient[] = [];
  t.teardown(async () => {
    for (const c of clients) await c.close();
    await db.drop();
  });
  const open = async (poolSize: number) => {
    const c = await openPostgres(db.url, poolSize);
    clients.push(c);
    return c;
  };
  idempotentAppends(t, async () => {
    // Two stores with their own pools: the appends really race on separate connections.
    const a = await createPostgresEventStore(await open(2));
    const b = await createPostgresEventStore(await open(2));
    return { writers: [a, b], sql: await open(2) };
  });

  t.test('ids committed by a writer that takes no stream lock: the append returns that result', async (t) => {
    const sql = await open(2);
    const store = await createPostgresEventStore(sql);
    const s = stream();
    const event = newEvent('Outside');
    const outside = new pg.Client({ connectionString: db.url });
    await outside.connect();
    t.teardown(() => outside.end());
    await outside.query('begin');
    await outside.query(
      `insert into es_events (event_id, stream_id, revision, type, schema_version, data, metadata) values ($1, $2, 0, $3, 1, '{}', $4)`,
      [event.id, s, event.type, JSON.stringify(event.metadata)],
    );
    const appending = store.append(s, [event], 'no_stream');
    // The append waits on the uncommitted row, and fails with a unique violation once it commits.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await outside.query('commit');
    const result = await appending;
    t.equal(result.nextRevision, 0, 'the outside append’s revision');
    const stored = await store.readStream(s);
    t.equal(stored.length, 1, 'the event once');
    t.equal(result.position, stored[0]!.position, 'its position');
  });
});
