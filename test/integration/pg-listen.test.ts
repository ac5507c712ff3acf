import pg from 'pg';
import t from 'tap';
import { openPostgres } from '../../src/db/pg-client.js';
import { freshDatabase, requirePostgresServer, serverUrl } from '../helpers/postgres-server.js';
import { waitUntil } from '../helpers/event-store-contract.js';

t.test('a LISTEN connection that the server ends is made again, and the process lives on', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  const sql = await openPostgres(db.url);
  t.teardown(() => sql.close());
  let wakes = 0;
  const stop = await sql.listen('slipway_test_channel', () => wakes++);
  t.teardown(stop);
  await sql.exec("notify slipway_test_channel");
  await waitUntil(() => wakes === 1);

  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  t.teardown(() => admin.end());
  const { rowCount } = await admin.query(
    "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query like 'listen %'",
  );
  t.equal(rowCount, 1, 'the listening backend was ended');
  // Listening again wakes the listener once (notices sent while it was gone are lost), then notices arrive.
  await waitUntil(() => wakes === 2, 10_000);
  await sql.exec("notify slipway_test_channel");
  await waitUntil(() => wakes === 3, 10_000);
  t.pass('notices arrive on the new connection');
});

t.test('a LISTEN connection handed back to the pool is the pool’s: the server ending it later crashes nothing', { skip: requirePostgresServer() }, async (t) => {
  const db = await freshDatabase(serverUrl!);
  t.teardown(() => db.drop());
  const sql = await openPostgres(db.url);
  t.teardown(() => sql.close());
  const stop = await sql.listen('slipway_test_channel', () => undefined);
  await stop();
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', record);
  t.teardown(() => process.off('uncaughtException', record));
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  t.teardown(() => admin.end());
  // Every backend of the store's pool, the one that listened among them (it sits idle in the pool now).
  await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  await new Promise((r) => setTimeout(r, 500));
  t.same(uncaught.map(String), [], 'no “release called on client which has already been released”');
  t.same((await sql.query<{ one: number }>('select 1 as one')).rows, [{ one: 1 }], 'the pool serves on new connections');
});
