import t from 'tap';
import { rejectsWith } from '../helpers/browser-errors.js';
import { freePort as closedPort } from '../helpers/net.js';
import { createClickhouseBrowser } from '../../src/engines/clickhouse-browser.js';
import { docker } from '../helpers/docker.js';
import { requireDbImages, startEngineContainer } from '../helpers/engine-containers.js';

const HOSTILE = [
  "'",
  "''",
  '\\',
  "\\'",
  "'); DROP TABLE events; --",
  "x' OR '1'='1",
  'back\\slash\\\\double',
  'nul\0byte',
  'line\nbreak\r\nand\ttab',
  '\x01\x02\x1f\x7f',
  '`backtick` "double"',
  'unicode: é ü 中文 😀 \u2028\uFEFF',
  '\\x41 \\0 \\n stay as typed',
  '',
];

const LIMITS = { timeoutMs: 10_000, maxRows: 1000 };

/** JSON text of a string with everything outside printable ASCII escaped (U+2028 would break a TAP line). */
function show(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

t.test('ClickHouse browser against a real server', { skip: await requireDbImages() }, async (t) => {
  const container = await startEngineContainer('columnar', async (endpoint) => {
    const probe = createClickhouseBrowser(endpoint);
    try {
      await probe.ping();
    } finally {
      await probe.close();
    }
  });
  t.teardown(() => container.stop());
  // The stand-in's entrypoint creates CLICKHOUSE_DB with a temporary server that listens on every
  // interface (the official image's listens on 127.0.0.1 only), so the probe can succeed against that one
  // just before it is stopped. Wait for the entrypoint to have exec'd the final server: one process left.
  for (let i = 0; ; i++) {
    const top = await docker.getContainer(container.name).top();
    const processes = (top as { Processes?: string[][] }).Processes ?? [];
    if (processes.length === 1 && processes[0]!.join(' ').includes('clickhouse-server')) break;
    if (i > 300) throw new Error(`the ClickHouse entrypoint did not settle: ${JSON.stringify(processes)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const { endpoint } = container;
  const browser = createClickhouseBrowser(endpoint);
  t.teardown(() => browser.close());
  for (let i = 0; ; i++) {
    try {
      await browser.ping();
      break;
    } catch (error) {
      if (i > 100) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  // Statements other than SELECT go through the same console.
  await browser.query(
    'CREATE TABLE events (id UInt32, ts DateTime, name String, tags Array(String), score Nullable(Float64), amount Decimal(9, 2), kind Enum8(\'a\' = 1, \'b\' = 2) DEFAULT \'a\') ' +
      'ENGINE = MergeTree() PARTITION BY toYYYYMM(ts) ORDER BY (id, ts)',
    LIMITS,
  );
  await browser.query('CREATE TABLE notes (n UInt8, body String) ENGINE = Memory', LIMITS);
  await browser.query(
    "INSERT INTO events (id, ts, name, tags, score, amount) VALUES (3, '2024-01-03 00:00:00', 'third', ['c'], 3.5, 3.00), (1, '2024-01-01 00:00:00', 'first', [], NULL, 1.10), " +
      "(2, '2024-01-02 00:00:00', 'second', ['a', 'b'], 2, 2.20)",
    LIMITS,
  );
  await browser.query("INSERT INTO events (id, ts, name, tags, score, amount) VALUES (2, '2024-01-01 12:00:00', 'second early', [], NULL, 0)", LIMITS);
  await browser.query("INSERT INTO notes VALUES (1, 'a'), (2, 'b')", LIMITS);

  await t.test('tables of the database', async (t) => {
    const tables = await browser.tables({});
    t.same(
      tables.map((e) => [e.id, e.schema, e.name, e.rowCount]),
      [
        ['appdb.events', 'appdb', 'events', 4],
        ['appdb.notes', 'appdb', 'notes', 2],
      ],
    );
  });

  await t.test('rows in primary key order with ClickHouse type names', async (t) => {
    const page = await browser.rows('appdb.events', { limit: 10, offset: 0 });
    t.same(page.columns, [
      { name: 'id', type: 'UInt32', primary: true },
      { name: 'ts', type: 'DateTime', primary: true },
      { name: 'name', type: 'String', primary: false },
      { name: 'tags', type: 'Array(String)', primary: false },
      { name: 'score', type: 'Nullable(Float64)', primary: false },
      { name: 'amount', type: 'Decimal(9, 2)', primary: false },
      { name: 'kind', type: "Enum8('a' = 1, 'b' = 2)", primary: false },
    ]);
    t.equal(page.total, 4);
    t.same(
      page.rows.map((r) => [r.id, r.ts, r.name]),
      [
        [1, '2024-01-01 00:00:00', 'first'],
        [2, '2024-01-01 12:00:00', 'second early'],
        [2, '2024-01-02 00:00:00', 'second'],
        [3, '2024-01-03 00:00:00', 'third'],
      ],
      'ordered by (id, ts), not by insertion',
    );
    t.same(page.rows[2], { id: 2, ts: '2024-01-02 00:00:00', name: 'second', tags: ['a', 'b'], score: 2, amount: 2.2, kind: 'a' });
    t.same(page.rows[0]!.score, null);
    const second = await browser.rows('appdb.events', { limit: 2, offset: 1 });
    t.same(
      second.rows.map((r) => r.name),
      ['second early', 'second'],
    );
    t.equal(second.total, 4);
    const notes = await browser.rows('appdb.notes', { limit: 10, offset: 0 });
    t.same(
      notes.columns.map((c) => c.primary),
      [false, false],
      'a Memory table has no key',
    );
    t.equal(notes.total, 2);
  });

  await t.test('unknown and hostile table names', async (t) => {
    await rejectsWith(t, browser.rows('appdb.nope', { limit: 10, offset: 0 }), 'not_found');
    await rejectsWith(t, browser.rows('system.tables', { limit: 10, offset: 0 }), 'not_found', undefined, "only the service's database");
    await rejectsWith(t, browser.rows('appdb.events`; DROP TABLE events; --', { limit: 10, offset: 0 }), 'not_found');
    await rejectsWith(t, browser.rows("appdb.events' OR '1'='1", { limit: 10, offset: 0 }), 'not_found');
    await rejectsWith(t, browser.insertRow('appdb.events`', { id: 9 }), 'not_found');
    await rejectsWith(t, browser.rows('events', { limit: 10, offset: 0 }), 'invalid');
    await rejectsWith(t, browser.insertRow('appdb.events', { 'name`; DROP TABLE events; --': 'x' }), 'not_found', /column/);
    await rejectsWith(t, browser.updateRow('appdb.events', { id: 1, ts: '2024-01-01 00:00:00' }, { "name = 'x', id": 'y' }), 'not_found', /column/);
    await rejectsWith(t, browser.deleteRow('appdb.events', { id: 1, ts: '2024-01-01 00:00:00', '1 = 1 OR id': 1 }), 'not_found', /column/);
    t.equal((await browser.rows('appdb.events', { limit: 10, offset: 0 })).total, 4, 'the table is intact');
  });

  await t.test('query: row cap, truncation and types', async (t) => {
    const capped = await browser.query('SELECT number, toString(number) AS text FROM system.numbers LIMIT 100', { timeoutMs: 10_000, maxRows: 10 });
    t.same(capped.columns, [
      { name: 'number', type: 'UInt64' },
      { name: 'text', type: 'String' },
    ]);
    t.equal(capped.rows.length, 10);
    t.equal(capped.rowCount, 10);
    t.equal(capped.truncated, true);
    t.same(capped.rows[3], { number: '3', text: '3' }, '64-bit integers come as text, as ClickHouse writes them in JSON');
    const whole = await browser.query('SELECT number FROM system.numbers LIMIT 100;', { timeoutMs: 10_000, maxRows: 100 });
    t.equal(whole.rows.length, 100);
    t.equal(whole.truncated, false, 'exactly maxRows is not truncated');
    const unbounded = await browser.query('SELECT number FROM system.numbers', { timeoutMs: 10_000, maxRows: 5 });
    t.equal(unbounded.rows.length, 5, 'an endless result stops at the cap');
    t.equal(unbounded.truncated, true);
    const commented = await browser.query('/* a note */ -- and another\n(SELECT 1 AS one)', LIMITS);
    t.same(commented.rows, [{ one: 1 }]);
    t.same((await browser.query('SHOW TABLES', LIMITS)).rows, [{ name: 'events' }, { name: 'notes' }]);
    t.same((await browser.query('DESCRIBE TABLE notes', LIMITS)).rows.map((r) => [r.name, r.type]), [
      ['n', 'UInt8'],
      ['body', 'String'],
    ]);
    const created = await browser.query('CREATE TABLE scratch (x UInt8) ENGINE = Memory', LIMITS);
    t.same({ ...created, rowCount: 0 }, { columns: [], rows: [], rowCount: 0, truncated: false }, 'a command answers no rows');
    await browser.query('DROP TABLE scratch', LIMITS);
  });

  await t.test('query: engine errors', async (t) => {
    await rejectsWith(t, browser.query('SELECT * FROM nope', LIMITS), 'engine', /nope/);
    await rejectsWith(t, browser.query('SELEKT 1', LIMITS), 'engine', /Syntax error/i);
    await rejectsWith(t, browser.query('SELECT 1 FORMAT CSV', LIMITS), 'engine');
    await rejectsWith(t, browser.query('CREATE TABLE events (x UInt8) ENGINE = Memory', LIMITS), 'engine', /already exists/);
    await rejectsWith(t, browser.query('SELECT 1; DROP TABLE events', LIMITS), 'engine', undefined, 'one statement only');
    await rejectsWith(t, browser.query('  ', LIMITS), 'invalid');
    t.equal((await browser.tables({})).length, 2, 'events is still there');
  });

  await t.test('query: the deadline cancels a long statement', async (t) => {
    const started = Date.now();
    await rejectsWith(t, browser.query('SELECT sleep(3)', { timeoutMs: 1000, maxRows: 10 }), 'timeout');
    const elapsed = Date.now() - started;
    t.ok(elapsed >= 900 && elapsed < 2500, `answered near the deadline (${elapsed} ms)`);
    await rejectsWith(
      t,
      browser.query('SELECT count() FROM system.numbers WHERE NOT ignore(sleepEachRow(0))', { timeoutMs: 1000, maxRows: 10 }),
      'timeout',
      undefined,
      'a statement that keeps running is timed out too',
    );
    t.same((await browser.query('SELECT 1 AS one', LIMITS)).rows, [{ one: 1 }], 'the browser is still usable');
  });

  await t.test('hostile strings round-trip through insert and update', async (t) => {
    for (const [i, text] of HOSTILE.entries()) {
      const id = 100 + i;
      const answer = await browser.insertRow('appdb.events', { id, ts: '2024-02-01 00:00:00', name: text, tags: [text, 'plain'], score: null, amount: '12.34', kind: 'b' });
      t.same(answer, { id: { id, ts: '2024-02-01 00:00:00' } }, 'insert answers the primary key given');
    }
    const page = await browser.rows('appdb.events', { limit: 100, offset: 4 });
    t.equal(page.rows.length, HOSTILE.length);
    for (const [i, text] of HOSTILE.entries()) {
      const row = page.rows[i]!;
      t.equal(row.id, 100 + i);
      t.equal(row.name, text, `name read back exactly: ${show(text)}`);
      t.same(row.tags, [text, 'plain'], `array element read back exactly: ${show(text)}`);
      t.equal(row.amount, 12.34);
      t.equal(row.kind, 'b', 'an enum value written as text');
    }
    for (const [i, text] of HOSTILE.entries()) {
      const reversed = [...text].reverse().join('') + "'";
      await browser.updateRow('appdb.events', { id: 100 + i, ts: '2024-02-01 00:00:00' }, { name: reversed, amount: '99.99', score: 0.5 });
      const [row] = (await browser.query(`SELECT name, toString(amount) AS amount, score FROM events WHERE id = ${100 + i}`, LIMITS)).rows;
      t.same(row, { name: reversed, amount: '99.99', score: 0.5 }, `updated exactly: ${show(reversed)}`);
    }
    // Hostile values in the WHERE of a key lookup.
    await browser.insertRow('appdb.notes', { n: 7, body: "'); DROP TABLE notes; --" });
    t.equal((await browser.rows('appdb.notes', { limit: 10, offset: 0 })).total, 3);
  });

  await t.test('updates and deletes by primary key', async (t) => {
    const key = { id: 1, ts: '2024-01-01 00:00:00' };
    await browser.updateRow('appdb.events', key, { name: 'first, renamed', tags: ['x'], score: null });
    const [row] = (await browser.query("SELECT name, tags, score FROM events WHERE id = 1", LIMITS)).rows;
    t.same(row, { name: 'first, renamed', tags: ['x'], score: null }, 'the mutation is done when updateRow answers');
    await rejectsWith(t, browser.updateRow('appdb.events', { id: 42, ts: '2024-01-01 00:00:00' }, { name: 'x' }), 'not_found');
    await rejectsWith(t, browser.updateRow('appdb.events', { id: 1 }, { name: 'x' }), 'invalid', /ts/, 'every key column is needed');
    await rejectsWith(t, browser.updateRow('appdb.events', key, { id: 5 }), 'invalid', /primary key/);
    await rejectsWith(t, browser.updateRow('appdb.events', key, { name: 5 }), 'invalid', /String/);
    await rejectsWith(t, browser.updateRow('appdb.events', key, { score: 'high' }), 'invalid');
    await rejectsWith(t, browser.updateRow('appdb.events', key, {}), 'invalid');
    await rejectsWith(t, browser.insertRow('appdb.events', { id: 'abc', ts: '2024-01-01 00:00:00' }), 'invalid');
    await rejectsWith(t, browser.insertRow('appdb.events', { id: 70000000000, ts: '2024-01-01 00:00:00' }), 'invalid', /range/);
    await rejectsWith(t, browser.insertRow('appdb.events', { id: 9, ts: 'not a date' }), 'engine', undefined, "ClickHouse's own refusal of a bad date");
    // notes has a column named n: the row check must not be confused by it.
    await rejectsWith(t, browser.updateRow('appdb.notes', { n: 1 }, { body: 'x' }), 'engine', /Mutations are not supported/i, 'a Memory table has no mutations');
    await rejectsWith(t, browser.updateRow('appdb.notes', { n: 99 }, { body: 'x' }), 'not_found', undefined, 'a missing row in a table with a column n');

    await browser.deleteRow('appdb.events', key);
    t.same((await browser.query('SELECT count() AS n FROM events WHERE id = 1', LIMITS)).rows, [{ n: '0' }], 'deleted when deleteRow answers');
    await rejectsWith(t, browser.deleteRow('appdb.events', key), 'not_found', undefined, 'deleting twice');
    await browser.insertRow('appdb.events', { id: 500, ts: '2024-03-01 00:00:00', name: 'a', tags: [], score: null, amount: 1 });
    await browser.insertRow('appdb.events', { id: 500, ts: '2024-03-01 00:00:00', name: 'b', tags: [], score: null, amount: 1 });
    await rejectsWith(t, browser.deleteRow('appdb.events', { id: 500, ts: '2024-03-01 00:00:00' }), 'invalid', /2 rows/, 'a key matching two rows is refused');
    await browser.deleteRow('appdb.events', { id: 500, ts: '2024-03-01 00:00:00', name: 'b' });
    t.same((await browser.query('SELECT name FROM events WHERE id = 500', LIMITS)).rows, [{ name: 'a' }], 'more columns pick one row');
  });

  await t.test('unreachable servers and wrong credentials are unavailable', async (t) => {
    const closed = createClickhouseBrowser({ ...endpoint, port: await closedPort() });
    await rejectsWith(t, closed.ping(), 'unavailable');
    await rejectsWith(t, closed.tables({}), 'unavailable');
    await rejectsWith(t, closed.query('SELECT 1', LIMITS), 'unavailable');
    await closed.close();
    const wrong = createClickhouseBrowser({ ...endpoint, password: 'not-the-password' });
    await rejectsWith(t, wrong.ping(), 'unavailable');
    await wrong.close();
  });
});
