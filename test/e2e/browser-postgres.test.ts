import t from 'tap';
import type { DatabaseBrowser } from '../../src/engines/browser.js';
import { kindOf } from '../helpers/browser-errors.js';
import { createPostgresBrowser, EXACT_COUNT_LIMIT } from '../../src/engines/postgres-browser.js';
import { requireDocker } from '../helpers/docker.js';
import { requireDbImages, startEngineContainer } from '../helpers/engine-containers.js';
import { freePort } from '../helpers/net.js';
import { checkSilentServer } from '../helpers/silent-relay.js';

const limits = { timeoutMs: 5_000, maxRows: 1_000 };

t.test('the Postgres browser on a real server', { skip: (await requireDocker()) || (await requireDbImages()) }, async (t) => {
  const server = await startEngineContainer('postgres', async (endpoint) => {
    const probe = createPostgresBrowser(endpoint, 'postgres');
    try {
      await probe.ping();
    } finally {
      await probe.close();
    }
  });
  t.teardown(() => server.stop());
  const b: DatabaseBrowser = createPostgresBrowser(server.endpoint, 'postgres');
  t.teardown(() => b.close());
  await b.query(
    `create schema sales;
     create table sales.orders (id serial primary key, customer text not null, total numeric(10,2), placed date, payload jsonb, raw bytea, big bigint);
     create table public.pairs (a int, b text, note text, primary key (b, a));
     create table public.loose (x int);
     insert into sales.orders (customer, total, placed, payload, raw, big) select 'c' || g, g * 1.5, date '2024-01-01' + g, jsonb_build_object('n', g), '\\x0a0b', 9007199254740993 from generate_series(1, 250) g;
     insert into public.pairs values (1, 'x', 'first'), (2, 'x', 'second');`,
    limits,
  );

  t.test('tables with exact counts, every user schema', async (t) => {
    t.same((await b.tables({})).map((x) => [x.id, x.rowCount]), [['public.loose', 0], ['public.pairs', 2], ['sales.orders', 250]]);
  });

  t.test('a table above the limit reports the catalogue estimate without counting', async (t) => {
    await b.query(`create table public.huge (id int primary key); insert into public.huge select generate_series(1, ${EXACT_COUNT_LIMIT + 5000}); analyze public.huge`, { timeoutMs: 60_000, maxRows: 10 });
    const estimate = Number((await b.query("select reltuples::bigint as n from pg_class where relname = 'huge'", limits)).rows[0]!.n);
    const entry = (await b.tables({})).find((x) => x.id === 'public.huge')!;
    t.equal(entry.rowCount, estimate, 'the estimate, as the catalogue has it');
    t.equal((await b.rows('public.huge', { limit: 1, offset: 0 })).total, estimate);
    await b.query('drop table public.huge', limits);
  });

  t.test('rows: paging in key order, primary flags, JSON-safe values', async (t) => {
    const page = await b.rows('sales.orders', { limit: 2, offset: 10 });
    t.equal(page.total, 250);
    t.same(page.columns.map((c) => [c.name, c.type, c.primary]), [
      ['id', 'integer', true], ['customer', 'text', false], ['total', 'numeric(10,2)', false], ['placed', 'date', false],
      ['payload', 'jsonb', false], ['raw', 'bytea', false], ['big', 'bigint', false],
    ]);
    t.same(page.rows[0], { id: 11, customer: 'c11', total: '16.50', placed: '2024-01-12', payload: { n: 11 }, raw: '\\x0a0b', big: '9007199254740993' });
    t.same((await b.rows('public.pairs', { limit: 10, offset: 0 })).columns.filter((c) => c.primary).map((c) => c.name), ['a', 'b']);
    t.equal(await kindOf(b.rows('sales.nothing', { limit: 1, offset: 0 })), 'not_found');
    t.equal(await kindOf(b.rows('nodot', { limit: 1, offset: 0 })), 'invalid');
    t.equal(await kindOf(b.rows('sales.orders"; drop table sales.orders; --', { limit: 1, offset: 0 })), 'not_found', 'a hostile name is only ever looked up');
  });

  t.test('query: typed columns, the row cap, statements without rows, several statements', async (t) => {
    const capped = await b.query('select g, g::text as s from generate_series(1, 5000) g', { timeoutMs: 5_000, maxRows: 1000 });
    t.same(capped.columns, [{ name: 'g', type: 'int4' }, { name: 's', type: 'text' }]);
    t.equal(capped.rows.length, 1000);
    t.equal(capped.rowCount, 1000);
    t.equal(capped.truncated, true);
    t.equal((await b.query('select 1 as one', limits)).truncated, false);
    t.same(await b.query("update sales.orders set customer = customer where id <= 7", limits), { columns: [], rows: [], rowCount: 7, truncated: false });
    t.same((await b.query('select 1 as a; select 2 as b', limits)).rows, [{ b: 2 }], 'the last statement answers');
    t.equal(await kindOf(b.query('select * from nowhere', limits)), 'engine');
    t.equal(await kindOf(b.query('selec 1', limits)), 'engine');
  });

  t.test('query: a timeout cancels the statement and leaves the session clean', async (t) => {
    const started = Date.now();
    t.equal(await kindOf(b.query('select pg_sleep(10)', { timeoutMs: 500, maxRows: 10 })), 'timeout');
    t.ok(Date.now() - started < 5_000, 'answered soon after the limit');
    await b.query("set statement_timeout = 1234; set search_path = sales; begin; create temp table leak (x int)", limits);
    for (let i = 0; i < 4; i++) {
      const r = await b.query("select current_setting('statement_timeout') as st, current_setting('search_path') as sp, to_regclass('pg_temp.leak') is null as no_leak", limits);
      t.same(r.rows, [{ st: '5s', sp: '"$user", public', no_leak: true }], 'no setting, transaction or temp table leaks into the next request');
    }
  });

  t.test('query: a statement that lifts its own timeout is still cancelled', async (t) => {
    const started = Date.now();
    t.equal(await kindOf(b.query('set statement_timeout = 0; select pg_sleep(30)', { timeoutMs: 500, maxRows: 10 })), 'timeout');
    t.ok(Date.now() - started < 5_000, `cancelled by the second connection (${Date.now() - started} ms)`);
    t.same((await b.query('select 1 as one', limits)).rows, [{ one: 1 }], 'the browser still answers');
  });

  t.test('query: COPY through the console neither hangs nor crashes', async (t) => {
    t.same(await b.query('copy sales.orders to stdout', limits), { columns: [], rows: [], rowCount: 250, truncated: false }, 'TO STDOUT counts its rows');
    t.equal(await kindOf(b.query('copy public.loose from stdin', limits)), 'engine', 'FROM STDIN is refused');
    t.equal(await kindOf(b.query('select 1; copy public.loose from stdin', limits)), 'engine', 'also among several statements');
    t.same((await b.query('select count(*)::int as n from public.loose', limits)).rows, [{ n: 0 }], 'nothing was copied in, and the browser still answers');
  });

  t.test('row edits bind values and check names', async (t) => {
    const hostile = "Robert'); drop table sales.orders; --";
    const { id } = await b.insertRow('sales.orders', { customer: hostile, total: '1.00' });
    t.equal(id, 251, 'the serial id');
    t.same((await b.query(`select customer from sales.orders where id = ${Number(id)}`, limits)).rows, [{ customer: hostile }]);
    await b.updateRow('sales.orders', { id: 251 }, { total: '2.50' });
    t.same((await b.query('select total from sales.orders where id = 251', limits)).rows, [{ total: '2.50' }]);
    await b.deleteRow('sales.orders', { id: 251 });
    t.equal(await kindOf(b.deleteRow('sales.orders', { id: 251 })), 'not_found', 'a missing row');
    t.same(await b.insertRow('public.pairs', { a: 3, b: 'y', note: 'third' }), { id: { b: 'y', a: 3 } }, 'a composite key answers every key column');
    await b.updateRow('public.pairs', { a: 3, b: 'y' }, { note: 'changed' });
    t.equal(await kindOf(b.updateRow('public.pairs', { a: 3 }, { note: 'x' })), 'invalid', 'the whole key is required');
    t.equal(await kindOf(b.updateRow('public.loose', { x: 1 }, { x: 2 })), 'invalid', 'no primary key, no addressing');
    t.equal(await kindOf(b.insertRow('sales.orders', { 'customer" text); --': 'x' })), 'invalid', 'an unknown column');
    t.equal(await kindOf(b.insertRow('sales.orders', { customer: 'x', total: 'lots' })), 'engine', 'a value the column cannot take');
    t.equal(await kindOf(b.updateRow('sales.orders', { id: 1 }, {})), 'invalid');
    t.ok((await b.insertRow('public.loose', {})).id === null, 'defaults only, no key');
  });

  t.test('query: a server that goes silent mid-statement cannot hold the request', async (t) => {
    await checkSilentServer(t, server.endpoint, (endpoint) => createPostgresBrowser({ ...server.endpoint, ...endpoint }, 'postgres'), 'select pg_sleep(2)');
  });

  t.test('an endpoint nobody answers is unavailable', async (t) => {
    const nobody = createPostgresBrowser({ ...server.endpoint, port: await freePort() }, 'postgres');
    t.equal(await kindOf(nobody.ping()), 'unavailable');
    await nobody.close();
    const wrong = createPostgresBrowser({ ...server.endpoint, password: 'wrong' }, 'postgres');
    t.equal(await kindOf(wrong.ping()), 'unavailable', 'credentials the server refuses');
    await wrong.close();
  });
});
