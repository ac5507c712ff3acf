import t from 'tap';
import type { SqlValue } from '../../src/db/sql-client.js';
import { seededPglite } from '../helpers/pglite-template.js';

// The first run of a statement goes through PGlite's extended protocol; later runs execute it prepared,
// with its parameters written as literals. Both must read exactly the same values.
t.test('a prepared statement reads every kind of parameter as the first run did', async (t) => {
  const db = await seededPglite();
  t.teardown(() => db.close());
  await db.exec(`create table kinds (id int primary key, t text, n bigint, b boolean, j jsonb, js json, a text[], u uuid[], bin bytea, at timestamptz)`);
  const insert = 'insert into kinds values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';
  const rows: SqlValue[][] = [
    [1, `it's a "quote", a \\backslash, ünïcode ✓, $1 and '' too`, 9007199254740993n, true, { nested: { list: [1, 'two', null] }, q: "it's" }, [1, 2], ['a', 'b c', 'd,e', 'f"g', 'h\\i', '', 'NULL'], ['00000000-0000-4000-8000-000000000001'], Buffer.from([0, 1, 254, 255]), new Date('2026-01-02T03:04:05.678Z')],
    [2, '', -1, false, [{ a: 1 }], { k: 'v' }, [], [], Buffer.alloc(0), new Date(0)],
    [3, null, null, null, null, null, null, null, null, null],
    [4, 'x', 0, true, '"a JSON string"', '"quoted"', [null, 'n'], null, null, '2026-11-22T08:00:00Z'],
  ];
  for (const row of rows) t.equal((await db.query(insert, row)).rowCount, 1, `row ${row[0]} inserted`);
  const select = 'select * from kinds where id = $1';
  for (const row of rows) {
    const first = await db.query(select, [row[0]!]);
    t.ok(first.rows.length === 1, `row ${row[0]} read`);
  }
  const byExtendedProtocol = (await db.query('select * from kinds order by id')).rows;
  // Every row was written by the prepared path except the first, and read back by both paths.
  for (const row of rows) t.same((await db.query(select, [row[0]!])).rows, [byExtendedProtocol[(row[0] as number) - 1]], `row ${row[0]} reads the same prepared`);
  t.same(byExtendedProtocol[0], {
    id: 1,
    t: rows[0]![1],
    n: 9007199254740993n,
    b: true,
    j: rows[0]![4],
    js: [1, 2],
    a: rows[0]![6],
    u: rows[0]![7],
    bin: new Uint8Array([0, 1, 254, 255]),
    at: rows[0]![9],
  });
  t.same(byExtendedProtocol[3]!.j, 'a JSON string');
  t.same(byExtendedProtocol[3]!.a, [null, 'n']);
  t.same((await db.query('select count(*)::int as n from kinds where t = any($1::text[])', [['x', rows[0]![1]]])).rows, [{ n: 2 }], 'an array parameter in a condition');
  t.same((await db.query('select count(*)::int as n from kinds where t = any($1::text[])', [['x', rows[0]![1]]])).rows, [{ n: 2 }], 'the same, prepared');
});

t.test('row counts, errors and changed tables through a prepared statement', async (t) => {
  const db = await seededPglite();
  t.teardown(() => db.close());
  await db.exec('create table items (id int primary key, v text)');
  for (let i = 0; i < 5; i++) await db.query('insert into items values ($1, $2)', [i, `v${i}`]);
  t.equal((await db.query('update items set v = $1 where id < $2', ['u', 3])).rowCount, 3);
  t.equal((await db.query('update items set v = $1 where id < $2', ['w', 4])).rowCount, 4, 'prepared: the count of the statement it executes');
  await t.rejects(db.query('insert into items values ($1, $2)', [1, 'dup']), { code: '23505' }, 'a unique violation keeps its code');

  const read = 'select * from items where id = $1';
  t.same((await db.query(read, [1])).rows, [{ id: 1, v: 'w' }]);
  t.same((await db.query(read, [1])).rows, [{ id: 1, v: 'w' }]);
  await db.exec('alter table items add column extra text');
  t.same((await db.query(read, [1])).rows, [{ id: 1, v: 'w', extra: null }], 'a table that gained a column: prepared again');
  // A rebuild's swap: the table is replaced by another of the same name.
  await db.exec(`create schema old; alter table items set schema old; create table items (id int primary key, v text); insert into items values (1, 'rebuilt')`);
  t.same((await db.query(read, [1])).rows, [{ id: 1, v: 'rebuilt' }], 'a replaced table: the new one is read');
});

t.test('only so many statements stay prepared', async (t) => {
  const db = await seededPglite();
  t.teardown(() => db.close());
  for (let i = 0; i < 260; i++) await db.query(`select $1::int + ${i} as n`, [i]);
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements');
  t.ok(rows[0]!.n > 0 && rows[0]!.n <= 200, `${rows[0]!.n} prepared`);
  t.same((await db.query(`select $1::int + 259 as n`, [1])).rows, [{ n: 260 }], 'an evicted statement still runs');
});
