import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { seededPglite } from '../helpers/pglite-template.js';

// PGlite runs on a thread of its own; what crosses to it and back must arrive as it would in-process.
t.test('values, errors, transactions and notifications cross the thread intact', async (t) => {
  const db = await seededPglite();
  t.teardown(() => db.close());
  await db.exec('create table items (id int primary key, bin bytea, at timestamptz, big bigint)');

  await db.query('insert into items values ($1, $2, $3, $4)', [1, Buffer.from('key'), new Date('2026-01-01T00:00:00Z'), 2n ** 60n]);
  const [row] = (await db.query<{ bin: Buffer; at: Date; big: bigint }>('select bin, at, big from items where id = $1', [1])).rows;
  t.ok(Buffer.isBuffer(row!.bin), 'bytea is a Buffer, as pg gives it');
  t.equal(row!.bin.toString(), 'key');
  t.same(row!.at, new Date('2026-01-01T00:00:00Z'), 'a timestamp is a Date');
  t.equal(row!.big, 2n ** 60n, 'a bigint stays exact');

  await t.rejects(db.query('insert into items (id) values ($1)', [1]), { code: '23505', constraint: 'items_pkey', message: /duplicate key/ }, "an error keeps Postgres's fields");

  let outside: Promise<{ rows: { n: number }[] }> | null = null;
  await db.transaction(async (tx) => {
    await tx.query('insert into items (id) values ($1)', [2]);
    // Asked meanwhile, outside the transaction: answered once the transaction has ended, never inside it.
    outside = db.query<{ n: number }>('select count(*)::int as n from items');
    await tx.query('insert into items (id) values ($1)', [3]);
  });
  t.same((await outside!).rows, [{ n: 3 }], 'a query from outside waits for the transaction and sees what it committed');
  await t.rejects(
    db.transaction(async (tx) => {
      await tx.query('insert into items (id) values ($1)', [4]);
      throw new Error('changed my mind');
    }),
    { message: 'changed my mind' },
  );
  t.same((await db.query('select id from items where id = $1', [4])).rows, [], 'a transaction that throws is rolled back');

  const heard: string[] = [];
  const stop = await db.listen('items_changed', () => heard.push('notified'));
  await db.query(`select pg_notify('items_changed', '')`);
  await new Promise((r) => setTimeout(r, 50));
  t.same(heard, ['notified'], 'a notification reaches the listener');
  await stop();
  await db.query(`select pg_notify('items_changed', '')`);
  await new Promise((r) => setTimeout(r, 50));
  t.same(heard, ['notified'], 'and no longer once it stopped listening');
});

t.test('a closed client refuses work instead of hanging', async (t) => {
  const db = await seededPglite();
  await db.close();
  await t.rejects(db.query('select 1'), { message: /PGlite thread stopped/ });
});

t.test('a client left open does not keep its process alive', async (t) => {
  const script = fileURLToPath(new URL('../helpers/pglite-left-open.ts', import.meta.url));
  const run = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
  t.equal(run.stdout.trim(), '42', run.stderr);
  t.equal(run.status, 0, 'it ended by itself');
});
