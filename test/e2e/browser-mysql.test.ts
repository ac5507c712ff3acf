import t from 'tap';
import type { DatabaseBrowser } from '../../src/engines/browser.js';
import { kindOf } from '../helpers/browser-errors.js';
import { createMysqlBrowser } from '../../src/engines/mysql-browser.js';
import { requireDocker } from '../helpers/docker.js';
import { requireDbImages, startEngineContainer } from '../helpers/engine-containers.js';
import { freePort } from '../helpers/net.js';
import { checkSilentServer } from '../helpers/silent-relay.js';

const limits = { timeoutMs: 5_000, maxRows: 1_000 };

t.test('the MySQL browser on a real server (MariaDB under the official mysql contract)', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const server = await startEngineContainer('mysql', async (endpoint) => {
    const probe = createMysqlBrowser(endpoint);
    try {
      await probe.ping();
    } finally {
      await probe.close();
    }
  });
  t.teardown(() => server.stop());
  const b: DatabaseBrowser = createMysqlBrowser(server.endpoint);
  t.teardown(() => b.close());
  await b.query(
    `create table orders (id int auto_increment primary key, customer varchar(200) not null, total decimal(10,2), placed datetime, raw blob, big bigint);
     create table pairs (a int, b varchar(10), note text, primary key (b, a));
     create table loose (x int);
     insert into orders (customer, total, placed, raw, big) values ('c1', 1.50, '2024-01-02 03:04:05', x'0a0b', 9007199254740993), ('c2', 3.00, null, null, null), ('c3', 4.50, null, null, null);
     insert into pairs values (1, 'x', 'first');`,
    limits,
  );

  t.test('tables of the database with exact counts; rows in key order with types', async (t) => {
    t.same((await b.tables({})).map((x) => [x.id, x.schema, x.rowCount]), [['appdb.loose', 'appdb', 0], ['appdb.orders', 'appdb', 3], ['appdb.pairs', 'appdb', 1]]);
    const page = await b.rows('appdb.orders', { limit: 2, offset: 0 });
    t.equal(page.total, 3);
    t.same(page.columns.map((c) => [c.name, c.type, c.primary]), [
      ['id', 'int(11)', true], ['customer', 'varchar(200)', false], ['total', 'decimal(10,2)', false], ['placed', 'datetime', false], ['raw', 'blob', false], ['big', 'bigint(20)', false],
    ]);
    t.same(page.rows[0], { id: 1, customer: 'c1', total: '1.50', placed: '2024-01-02 03:04:05', raw: '\\x0a0b', big: '9007199254740993' });
    t.equal(await kindOf(b.rows('appdb.nothing', { limit: 1, offset: 0 })), 'not_found');
    t.equal(await kindOf(b.rows('appdb.orders` where 1; drop table orders; --', { limit: 1, offset: 0 })), 'not_found');
  });

  t.test('query: the row cap stops the statement; typed columns; affected rows', async (t) => {
    const capped = await b.query('with recursive s(n) as (select 1 union all select n + 1 from s where n < 100000) select n from s', { timeoutMs: 10_000, maxRows: 1000 });
    t.equal(capped.rows.length, 1000);
    t.equal(capped.truncated, true);
    t.same(capped.columns, [{ name: 'n', type: 'INT' }]);
    t.same(await b.query("update orders set customer = customer where id <= 2", limits), { columns: [], rows: [], rowCount: 2, truncated: false });
    t.equal(await kindOf(b.query('select * from nowhere', limits)), 'engine');
  });

  t.test('query: a timeout kills the statement; the next request has a clean session', async (t) => {
    const started = Date.now();
    t.equal(await kindOf(b.query('select sleep(10)', { timeoutMs: 500, maxRows: 10 })), 'timeout');
    t.ok(Date.now() - started < 5_000, 'answered soon after the limit');
    t.equal(await kindOf(b.query('insert into orders (customer) select sleep(10)', { timeoutMs: 500, maxRows: 10 })), 'timeout', 'writes too, not only SELECT');
    await b.query('set @leak = 1; start transaction; insert into loose values (42)', limits);
    t.same((await b.query('select @leak as v', limits)).rows, [{ v: null }], 'no variable leaks');
    t.same((await b.query('select count(*) as n from loose', limits)).rows, [{ n: 0 }], 'an open transaction is rolled back');
  });

  t.test('row edits bind values and check names', async (t) => {
    const hostile = "Robert'); drop table orders; --";
    t.same(await b.insertRow('appdb.orders', { customer: hostile }), { id: 4 }, 'the auto-increment id');
    t.same((await b.query('select customer from orders where id = 4', limits)).rows, [{ customer: hostile }]);
    await b.updateRow('appdb.orders', { id: 4 }, { total: '2.50' });
    await b.deleteRow('appdb.orders', { id: 4 });
    t.equal(await kindOf(b.deleteRow('appdb.orders', { id: 4 })), 'not_found');
    t.same(await b.insertRow('appdb.pairs', { a: 2, b: 'y' }), { id: { b: 'y', a: 2 } }, 'a composite key answers its values');
    t.equal(await kindOf(b.updateRow('appdb.pairs', { a: 2 }, { note: 'n' })), 'invalid');
    t.equal(await kindOf(b.updateRow('appdb.loose', { x: 1 }, { x: 2 })), 'invalid');
    t.equal(await kindOf(b.insertRow('appdb.orders', { 'customer`) values (1); --': 'x' })), 'invalid');
    t.equal(await kindOf(b.insertRow('appdb.orders', { id: 'abc', customer: 'x' })), 'engine');
  });

  t.test('values are bound by the server, even with NO_BACKSLASH_ESCAPES', async (t) => {
    const root = createMysqlBrowser({ ...server.endpoint, user: 'root', password: `${server.endpoint.password}-root` });
    await root.query("set global sql_mode = concat(@@global.sql_mode, ',NO_BACKSLASH_ESCAPES')", limits);
    t.teardown(async () => {
      await root.query("set global sql_mode = replace(@@global.sql_mode, 'NO_BACKSLASH_ESCAPES', '')", limits);
      await root.close();
    });
    const fresh = createMysqlBrowser(server.endpoint);
    t.teardown(() => fresh.close());
    t.match((await fresh.query('select @@session.sql_mode as m', limits)).rows[0], { m: /NO_BACKSLASH_ESCAPES/ }, 'the new session runs in that mode');
    const hostile = "a\\', customer = 'pwned', total = (select 99) -- \\";
    const { id } = await fresh.insertRow('appdb.orders', { customer: hostile, total: '1.00' });
    t.same((await fresh.query(`select customer, total from orders where id = ${Number(id)}`, limits)).rows, [{ customer: hostile, total: '1.00' }], 'stored exactly as sent');
    await fresh.updateRow('appdb.orders', { id: Number(id) }, { customer: `${hostile}'` });
    t.same((await fresh.query(`select customer from orders where id = ${Number(id)}`, limits)).rows, [{ customer: `${hostile}'` }]);
    await fresh.deleteRow('appdb.orders', { id: Number(id) });
  });

  t.test('a table is found only under its exact name; a table without a key pages in a stable order', async (t) => {
    await b.query('create table Mixed (id int primary key); insert into Mixed values (1); create table unkeyed (n int, s text); insert into unkeyed values (3, "c"), (1, "a"), (2, "b"), (1, "z")', limits);
    t.teardown(() => b.query('drop table Mixed, unkeyed', limits));
    t.equal(await kindOf(b.rows('appdb.mixed', { limit: 1, offset: 0 })), 'not_found', 'another case is another name');
    t.same((await b.rows('appdb.Mixed', { limit: 5, offset: 0 })).rows, [{ id: 1 }]);
    const pages = [];
    for (let offset = 0; offset < 4; offset++) pages.push(...(await b.rows('appdb.unkeyed', { limit: 1, offset })).rows);
    t.equal(new Set(pages.map((r) => JSON.stringify(r))).size, 4, 'every row once, none repeated');
    t.same(pages.map((r) => r.n), [1, 1, 2, 3], 'sorted by its columns');
  });

  t.test('query: a server that goes silent mid-statement cannot hold the request', async (t) => {
    await checkSilentServer(t, server.endpoint, (endpoint) => createMysqlBrowser({ ...server.endpoint, ...endpoint }), 'select sleep(2)');
  });

  t.test('an endpoint nobody answers, or wrong credentials, is unavailable', async (t) => {
    const nobody = createMysqlBrowser({ ...server.endpoint, port: await freePort() });
    t.equal(await kindOf(nobody.ping()), 'unavailable');
    await nobody.close();
    const wrong = createMysqlBrowser({ ...server.endpoint, password: 'wrong' });
    t.equal(await kindOf(wrong.ping()), 'unavailable');
    await wrong.close();
  });
});
