import type { Test } from 'tap';
import type { SqlClient } from '../../src/db/sql-client.js';
import { createPostgresEventStore } from '../../src/eventstore/postgres-event-store.js';
import { newEvent } from './new-event.js';

/** Sequential scans of es_events so far, as this connection's statistics have them (flushed first). */
async function sequentialScans(sql: SqlClient): Promise<number> {
  await sql.query('select pg_stat_force_next_flush()');
  await sql.query('select pg_stat_clear_snapshot()');
  const { rows } = await sql.query<{ n: string }>(`select seq_scan::text as n from pg_stat_user_tables where relid = 'es_events'::regclass`);
  return Number(rows[0]!.n);
}

/**
 * An append must stay as fast at the millionth event as at the first: it reaches es_events only through
 * its indexes, whatever the planner's statistics say (PGlite never gathers any by itself). `sql` must be one
 * connection, so that its statistics are the ones read.
 */
export function appendsUseIndexes(t: Test, sql: () => SqlClient) {
  t.test('appends reach the events through their indexes, never a scan of the whole log', async (t) => {
    const store = await createPostgresEventStore(sql());
    const streamId = `scans-${Date.now()}`;
    let revision = -1;
    const append = async () => (revision = (await store.append(streamId, [newEvent('Scanned', { padding: 'x'.repeat(200) })], revision < 0 ? 'no_stream' : revision)).nextRevision);
    for (let i = 0; i < 2000; i++) await append();
    const before = await sequentialScans(sql());
    for (let i = 0; i < 100; i++) await append();
    await store.append(streamId, [newEvent('Scanned'), newEvent('Scanned')], revision);
    t.equal((await sequentialScans(sql())) - before, 0, 'no sequential scan of es_events in 101 appends after 2,000 events');
  });
}

/**
 * Appends made while one is being written share the next transaction (group commit): a burst pays for one
 * commit, not one each. Counted by the transactions the events were stamped with.
 */
export function appendsShareTransactions(t: Test, sql: () => SqlClient) {
  t.test('concurrent appends are written together, in fewer transactions than appends', async (t) => {
    const store = await createPostgresEventStore(sql());
    const streams = Array.from({ length: 20 }, (_, i) => `burst-${Date.now()}-${i}`);
    await Promise.all(streams.map((s) => store.append(s, [newEvent('Burst')], 'no_stream')));
    const { rows } = await sql().query<{ n: number }>('select count(distinct transaction_id)::int as n from es_events where stream_id = any($1::text[])', [streams]);
    t.ok(rows[0]!.n <= 3, `20 appends in ${rows[0]!.n} transactions`);
  });
}
