import pg from 'pg';
import t from 'tap';
import { openPostgres } from '../../src/db/pg-client.js';
import type { SqlClient } from '../../src/db/sql-client.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import type { EventStore, RecordedEvent } from '../../src/eventstore/port.js';
import { appendsShareTransactions, appendsUseIndexes } from '../helpers/postgres-appends.js';
import { eventStoreContract, newEvent } from '../helpers/event-store-contract.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';

const skip = requirePostgresServer();
if (skip || !serverUrl) {
  t.test('Postgres server event store', { skip }, () => undefined);
} else {
  const db = await freshDatabase(serverUrl);
  let sql: SqlClient;
  let store: EventStore;
  t.before(async () => {
    sql = await openPostgres(db.url);
    store = await createPostgresEventStore(sql);
  });
  const clients: SqlClient[] = [];
  t.teardown(async () => {
    await sql.close();
    for (const client of clients) await client.close();
    await db.drop();
  });

  let single: SqlClient;
  t.before(async () => {
    single = await openPostgres(db.url, 1);
    clients.push(single);
  });
  appendsUseIndexes(t, () => single);
  appendsShareTransactions(t, () => single);

  eventStoreContract(t, async () => {
    const client = await openPostgres(db.url, 4);
    clients.push(client);
    return createPostgresEventStore(client);
  });

  async function follow(after: string | null) {
    const out: RecordedEvent[] = [];
    for (;;) {
      const batch = await store.readAll({ after, maxCount: 1000 });
      if (!batch.length) return { out, after };
      out.push(...batch);
      after = batch[batch.length - 1]!.position;
    }
  }

  t.test('a transaction that commits late is not skipped by $all', async (t) => {
    const { after: start } = await follow(null);
    // Writer 1 takes a global position first but commits last.
    const slow = new pg.Client({ connectionString: db.url });
    await slow.connect();
    await slow.query('begin');
    await slow.query(
      `insert into es_events (event_id, stream_id, revision, type, schema_version, data, metadata)
       values (gen_random_uuid(), 'slow-1', 0, 'Slow', 1, '{}', '{"actor":"t","correlationId":"c","causationId":null}')`,
    );
    await store.append('fast-1', [newEvent('Fast')], 'any');
    const whileOpen = await follow(start);
    t.notOk(whileOpen.out.some((e) => e.type === 'Fast'), 'the later commit waits behind the open transaction');
    await slow.query('commit');
    await slow.end();
    t.same((await follow(start)).out.map((e) => e.type), ['Slow', 'Fast'], 'both, in transaction order');
  });

  t.test("a transaction open in another database on the same server holds nothing back (transaction ids are the server's)", async (t) => {
    const { after: start } = await follow(null);
    const elsewhere = await freshDatabase(serverUrl!);
    const other = new pg.Client({ connectionString: elsewhere.url });
    await other.connect();
    t.teardown(async () => {
      await other.end();
      await elsewhere.drop();
    });
    await other.query('begin');
    await other.query('create table held (n int)');
    const { rows } = await other.query<{ xid: string }>('select pg_current_xact_id()::text as xid');
    await store.append('after-foreign-1', [newEvent('AfterForeign')], 'any');
    const read = await follow(start);
    t.same(read.out.map((e) => e.type), ['AfterForeign'], `read while transaction ${rows[0]!.xid} stays open elsewhere`);
    await other.query('rollback');
  });

  t.test('two concurrent writers: a follower sees every event exactly once', async (t) => {
    const { after: start } = await follow(null);
    const writerA = await createPostgresEventStore(await openPostgres(db.url, 4));
    const writerB = await createPostgresEventStore(await openPostgres(db.url, 4));
    const seen: RecordedEvent[] = [];
    let cursor = start;
    let writing = true;
    let deadline = Infinity;
    const follower = (async () => {
      for (;;) {
        const batch = await store.readAll({ after: cursor, maxCount: 50 });
        seen.push(...batch);
        if (batch.length) cursor = batch[batch.length - 1]!.position;
        // Stop when all are in, or after a deadline (the assertions then say what is missing).
        else if (!writing && (seen.length >= 480 || Date.now() > deadline)) break;
        else await new Promise((r) => setTimeout(r, 1));
      }
    })();
    const write = (w: EventStore, name: string) =>
      Promise.all(
        Array.from({ length: 4 }, async (_, lane) => {
          for (let i = 0; i < 60; i++) await w.append(`${name}-${lane}`, [newEvent(name, { i })], 'any');
        }),
      );
    await Promise.all([write(writerA, 'wa'), write(writerB, 'wb')]);
    deadline = Date.now() + 10_000;
    writing = false;
    await follower;
    const ids = seen.map((e) => e.id);
    t.equal(ids.length, 480, 'every event');
    t.equal(new Set(ids).size, 480, 'none twice');
    for (const name of ['wa', 'wb'])
      for (let lane = 0; lane < 4; lane++) {
        const lanes = seen.filter((e) => e.streamId === `${name}-${lane}`).map((e) => e.data.i);
        t.same(lanes, Array.from({ length: 60 }, (_, i) => i), `${name}-${lane} in order`);
      }
  });
}
