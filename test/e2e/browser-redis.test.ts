import { Redis } from 'ioredis';
import t from 'tap';
import { rejectsWith } from '../helpers/browser-errors.js';
import { freePort as closedPort } from '../helpers/net.js';
import type { EngineEndpoint } from '../../src/engines/browser.js';
import { createRedisBrowser } from '../../src/engines/redis-browser.js';
import { requireDbImages, startEngineContainer } from '../helpers/engine-containers.js';

function raw(endpoint: EngineEndpoint, db: number): Redis {
  const client = new Redis({ host: endpoint.host, port: endpoint.port, password: endpoint.password ?? undefined, db, protocol: 2, lazyConnect: true, disableClientInfo: true });
  client.on('error', () => undefined);
  return client;
}

t.test('redis browser against a real server', { skip: await requireDbImages() }, async (t) => {
  const container = await startEngineContainer('redis', async (endpoint) => {
    const probe = createRedisBrowser(endpoint);
    try {
      await probe.ping();
    } finally {
      await probe.close();
    }
  });
  t.teardown(() => container.stop());
  const { endpoint } = container;
  const browser = createRedisBrowser(endpoint);
  t.teardown(() => browser.close());
  const db0 = raw(endpoint, 0);
  const db3 = raw(endpoint, 3);
  t.teardown(() => {
    db0.disconnect();
    db3.disconnect();
  });

  // Seed every type in database 0, and other namespaces in database 3.
  await db0.hset('user:1', { name: 'Ada', role: 'admin' });
  await db0.hset('user:2', { name: 'Bob' });
  await db0.set('user:10', 'ten');
  await db0.set('session:abc', 'token', 'EX', 100);
  await db0.rpush('queue:jobs', ...Array.from({ length: 150 }, (_, i) => `job-${i}`));
  await db0.sadd('tags:x', 'b', 'a', 'c');
  await db0.zadd('board:z', '2', 'two', '1', 'one', '-inf', 'bottom');
  await db0.xadd('events:s', '1-1', 'kind', 'created', 'by', 'ada');
  await db0.xadd('events:s', '2-1', 'kind', 'deleted');
  await db0.set('plain', 'no colon');
  await db3.set('other:1', 'in three');
  await db3.set('user:9', 'nine in three');

  await t.test('namespaces per logical database', async (t) => {
    const tables = await browser.tables({});
    t.same(
      tables.map((e) => [e.id, e.schema, e.name, e.rowCount]),
      [
        ['db0.board', 'db0', 'board', 1],
        ['db0.events', 'db0', 'events', 1],
        ['db0.plain', 'db0', 'plain', 1],
        ['db0.queue', 'db0', 'queue', 1],
        ['db0.session', 'db0', 'session', 1],
        ['db0.tags', 'db0', 'tags', 1],
        ['db0.user', 'db0', 'user', 3],
      ],
      'database 0 by default; a key without a colon is its own namespace',
    );
    t.same(await browser.tables({ database: 0 }), tables);
    const three = await browser.tables({ database: 3 });
    t.same(
      three.map((e) => [e.id, e.rowCount]),
      [
        ['db3.other', 1],
        ['db3.user', 1],
      ],
      'database 3 has its own namespaces',
    );
    t.same(await browser.tables({ database: 5 }), [], 'an empty database has none');
    await rejectsWith(t, browser.tables({ database: 16 }), 'invalid', /0 to 15/, 'database 16 is refused');
    await rejectsWith(t, browser.tables({ database: -1 }), 'invalid');
    await rejectsWith(t, browser.tables({ database: 1.5 }), 'invalid');
  });

  await t.test('rows of a namespace, sorted and paged', async (t) => {
    const page = await browser.rows('db0.user', { limit: 10, offset: 0 });
    t.same(page.columns, [
      { name: 'key', type: 'string', primary: true },
      { name: 'type', type: 'string', primary: false },
      { name: 'ttl', type: 'integer', primary: false },
      { name: 'value', type: 'value', primary: false },
    ]);
    t.equal(page.total, 3);
    t.same(page.rows, [
      { key: 'user:1', type: 'hash', ttl: -1, value: { name: 'Ada', role: 'admin' } },
      { key: 'user:10', type: 'string', ttl: -1, value: 'ten' },
      { key: 'user:2', type: 'hash', ttl: -1, value: { name: 'Bob' } },
    ]);
    const second = await browser.rows('db0.user', { limit: 2, offset: 1 });
    t.same(
      second.rows.map((r) => r.key),
      ['user:10', 'user:2'],
    );
    t.equal(second.total, 3, 'total counts the whole namespace');
    t.same((await browser.rows('db0.user', { limit: 5, offset: 3 })).rows, [], 'past the end');
    const three = await browser.rows('db3.user', { limit: 10, offset: 0 });
    t.same(three.rows, [{ key: 'user:9', type: 'string', ttl: -1, value: 'nine in three' }], 'database 3 keys only');
  });

  await t.test('every value type, bounded', async (t) => {
    const one = async (table: string) => (await browser.rows(table, { limit: 10, offset: 0 })).rows[0]!;
    const list = await one('db0.queue');
    t.equal(list.type, 'list');
    t.equal((list.value as string[]).length, 100, 'a long list shows its first 100 elements');
    t.same((list.value as string[]).slice(0, 2), ['job-0', 'job-1']);
    t.same(await one('db0.tags'), { key: 'tags:x', type: 'set', ttl: -1, value: ['a', 'b', 'c'] });
    t.same(await one('db0.board'), {
      key: 'board:z',
      type: 'zset',
      ttl: -1,
      value: [
        { member: 'bottom', score: '-inf' },
        { member: 'one', score: 1 },
        { member: 'two', score: 2 },
      ],
    });
    t.same(await one('db0.events'), {
      key: 'events:s',
      type: 'stream',
      ttl: -1,
      value: [
        { id: '1-1', fields: { kind: 'created', by: 'ada' } },
        { id: '2-1', fields: { kind: 'deleted' } },
      ],
    });
    t.same(await one('db0.plain'), { key: 'plain', type: 'string', ttl: -1, value: 'no colon' });
    const session = await one('db0.session');
    t.equal(session.value, 'token');
    t.ok(typeof session.ttl === 'number' && session.ttl > 0 && session.ttl <= 100, `ttl in seconds (${String(session.ttl)})`);

    await db0.set('big:s', 'x'.repeat(70_000));
    t.equal(((await one('db0.big')).value as string).length, 64 * 1024, 'a big string is cut to 64 KiB');
    await db0.hset('big:h', Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, String(i)])));
    await db0.sadd('big:t', ...Array.from({ length: 300 }, (_, i) => `m${i}`));
    const bigRows = (await browser.rows('db0.big', { limit: 10, offset: 0 })).rows;
    const hash = bigRows.find((r) => r.key === 'big:h')!;
    t.equal(Object.keys(hash.value as object).length, 100, 'a big hash shows 100 fields');
    const set = bigRows.find((r) => r.key === 'big:t')!;
    t.equal((set.value as string[]).length, 100, 'a big set shows 100 members');
    await db0.del('big:s', 'big:h', 'big:t');
  });

  await t.test('bad and unknown tables', async (t) => {
    await rejectsWith(t, browser.rows('db0.nothing', { limit: 10, offset: 0 }), 'not_found', /nothing/);
    await rejectsWith(t, browser.rows('db3.queue', { limit: 10, offset: 0 }), 'not_found', undefined, 'namespaces are per database');
    await rejectsWith(t, browser.rows('db16.user', { limit: 10, offset: 0 }), 'invalid');
    await rejectsWith(t, browser.rows('dbx.user', { limit: 10, offset: 0 }), 'invalid');
    await rejectsWith(t, browser.rows('db01.user', { limit: 10, offset: 0 }), 'invalid');
    await rejectsWith(t, browser.rows('user', { limit: 10, offset: 0 }), 'invalid');
    await rejectsWith(t, browser.rows('db0.user', { limit: 0, offset: 0 }), 'invalid');
    await rejectsWith(t, browser.rows('db0.user', { limit: 10, offset: -1 }), 'invalid');
    // Glob characters in a namespace match literally.
    await db0.set('a*:1', 'star');
    await db0.set('ab:1', 'not star');
    const star = await browser.rows('db0.a*', { limit: 10, offset: 0 });
    t.same(
      star.rows.map((r) => r.key),
      ['a*:1'],
    );
    await db0.del('a*:1', 'ab:1');
  });

  await t.test('query: one redis-cli line', async (t) => {
    const limits = { timeoutMs: 5000, maxRows: 10 };
    const set = await browser.query('SET "greeting key" "hello\\nworld"', limits);
    t.same(set, { columns: [{ name: 'result', type: 'string' }], rows: [{ result: 'OK' }], rowCount: 1, truncated: false });
    t.equal(await db0.get('greeting key'), 'hello\nworld', 'quoted argument with an escape');
    await browser.query("SET single 'it\\'s a \\n literal'", limits);
    t.equal(await db0.get('single'), "it's a \\n literal", 'single quotes are literal');
    await browser.query('SET bytes "\\x41\\x42\\xc3\\xa9"', limits);
    t.equal(await db0.get('bytes'), 'ABé', '\\xHH bytes');
    t.same((await browser.query('GET "greeting key"', limits)).rows, [{ result: 'hello\nworld' }]);
    t.same(await browser.query('GET missing', limits), { columns: [{ name: 'result', type: 'nil' }], rows: [{ result: null }], rowCount: 1, truncated: false });
    t.same(await browser.query('INCR counter', limits), { columns: [{ name: 'result', type: 'integer' }], rows: [{ result: 1 }], rowCount: 1, truncated: false });
    const range = await browser.query('LRANGE queue:jobs 0 -1', limits);
    t.same(range.columns, [{ name: 'result', type: 'array' }]);
    t.equal(range.rows.length, 10, 'capped at maxRows');
    t.equal(range.rowCount, 10);
    t.equal(range.truncated, true);
    t.same(range.rows[0], { result: 'job-0' });
    const small = await browser.query('LRANGE queue:jobs 0 2', limits);
    t.equal(small.truncated, false);
    t.same(
      small.rows.map((r) => r.result),
      ['job-0', 'job-1', 'job-2'],
    );
    const hash = await browser.query('hgetall user:1', limits);
    t.same(hash.columns, [{ name: 'result', type: 'array' }], "redis's own reply, not the driver's object");
    t.same(hash.rows.map((r) => r.result).sort(), ['Ada', 'admin', 'name', 'role']);
    await rejectsWith(t, browser.query('SET k "open', limits), 'invalid', /quote/, 'unbalanced quotes');
    await rejectsWith(t, browser.query('SET k "a"b', limits), 'invalid', undefined, 'text after a closing quote');
    await rejectsWith(t, browser.query('   ', limits), 'invalid', /empty/);
    await rejectsWith(t, browser.query('PING', { timeoutMs: 0, maxRows: 10 }), 'invalid');
    await rejectsWith(t, browser.query('PING', { timeoutMs: 1000, maxRows: 0 }), 'invalid');
    await browser.query('DEL "greeting key" single bytes counter', limits);
  });

  await t.test('query: engine errors and refused commands', async (t) => {
    const limits = { timeoutMs: 5000, maxRows: 10 };
    await rejectsWith(t, browser.query('NOSUCHCOMMAND a b', limits), 'engine', /unknown command/i);
    await rejectsWith(t, browser.query('LPUSH user:1 x', limits), 'engine', /WRONGTYPE/);
    await rejectsWith(t, browser.query('GET', limits), 'engine', /wrong number of arguments/i);
    for (const line of ['MONITOR', 'subscribe news', 'PSUBSCRIBE *', 'SHUTDOWN NOSAVE', 'DEBUG SLEEP 0', 'client pause 100', 'CLIENT REPLY OFF', 'SYNC', 'REPLICAOF 127.0.0.1 1', 'HELLO 3']) {
      await rejectsWith(t, browser.query(line, limits), 'invalid', /not allowed/, `refused: ${line}`);
    }
    t.same((await browser.query('PING', limits)).rows, [{ result: 'PONG' }], 'the server is still up and answering');
  });

  await t.test('query: a deadline cuts a blocking command off', async (t) => {
    const started = Date.now();
    await rejectsWith(t, browser.query('BLPOP nothing:here 5', { timeoutMs: 500, maxRows: 10 }), 'timeout');
    const elapsed = Date.now() - started;
    t.ok(elapsed >= 450 && elapsed < 2500, `cut off near the deadline (${elapsed} ms)`);
    // The blocked connection was closed, so the server holds no blocked client for it.
    let blocked = -1;
    for (let i = 0; i < 20 && blocked !== 0; i++) {
      blocked = Number(/blocked_clients:(\d+)/.exec(await db0.info('clients'))?.[1]);
      if (blocked !== 0) await new Promise((r) => setTimeout(r, 50));
    }
    t.equal(blocked, 0, 'no blocked client is left on the server');
    t.same((await browser.query('PING', { timeoutMs: 2000, maxRows: 10 })).rows, [{ result: 'PONG' }], 'the browser still answers queries');
    t.equal((await browser.rows('db0.user', { limit: 10, offset: 0 })).total, 3, 'and browses');
    // A blocking command that finishes in time is fine.
    await db0.rpush('ready:list', 'item');
    t.same((await browser.query('BLPOP ready:list 1', { timeoutMs: 2000, maxRows: 10 })).rows, [{ result: 'ready:list' }, { result: 'item' }]);
  });

  await t.test('insert rows of every writable type', async (t) => {
    t.same(await browser.insertRow('db3.new', { key: 'new:s', value: 'a string' }), { id: 'new:s' });
    t.same(await browser.insertRow('db3.new', { key: 'new:l', value: ['x', 'y', 'x'] }), { id: 'new:l' }, 'an array is a list');
    await browser.insertRow('db3.new', { key: 'new:h', value: { f: 'v', n: 2 } });
    await browser.insertRow('db3.new', { key: 'new:t', type: 'set', value: ['b', 'a', 'b'] });
    await browser.insertRow('db3.new', { key: 'new:z', type: 'zset', value: [{ member: 'm', score: 1.5 }, { member: 'n', score: '-2' }] });
    await browser.insertRow('db3.new', { key: 'new:x', type: 'string', value: "'); FLUSHALL; --\0\n", ttl: 60 });
    await browser.insertRow('db3.new', { key: 'new', value: 'the namespace itself' });
    t.equal(await db3.get('new:s'), 'a string');
    t.same(await db3.lrange('new:l', 0, -1), ['x', 'y', 'x']);
    t.same(await db3.hgetall('new:h'), { f: 'v', n: '2' });
    t.same((await db3.smembers('new:t')).sort(), ['a', 'b']);
    t.same(await db3.call('ZRANGE', 'new:z', '0', '-1', 'WITHSCORES'), ['n', '-2', 'm', '1.5']);
    t.equal(await db3.get('new:x'), "'); FLUSHALL; --\0\n", 'values are arguments, never command text');
    const ttl = await db3.ttl('new:x');
    t.ok(ttl > 0 && ttl <= 60, `ttl set (${ttl})`);
    t.equal(await db3.ttl('new:s'), -1, 'no ttl unless asked');
    const page = await browser.rows('db3.new', { limit: 10, offset: 0 });
    t.same(
      page.rows.map((r) => [r.key, r.type]),
      [
        ['new', 'string'],
        ['new:h', 'hash'],
        ['new:l', 'list'],
        ['new:s', 'string'],
        ['new:t', 'set'],
        ['new:x', 'string'],
        ['new:z', 'zset'],
      ],
    );
    t.notOk(await db0.exists('new:s'), 'written in database 3, not 0');

    await rejectsWith(t, browser.insertRow('db3.new', { key: 'new:s', value: 'again' }), 'invalid', /exists/, 'an existing key is refused');
    t.equal(await db3.get('new:s'), 'a string', 'and left as it was');
    await rejectsWith(t, browser.insertRow('db3.new', { key: 'old:1', value: 'x' }), 'invalid', /namespace/, 'a key outside the namespace');
    await rejectsWith(t, browser.insertRow('db3.new', { key: 'newer:1', value: 'x' }), 'invalid', /namespace/, 'a prefix is not the namespace');
    await rejectsWith(t, browser.insertRow('db3.new', { key: 'new:q', type: 'stream', value: ['x'] }), 'invalid', /type/);
    await rejectsWith(t, browser.insertRow('db3.new', { key: 'new:q', value: [] }), 'invalid', /empty/);
    await rejectsWith(t, browser.insertRow('db3.new', { key: 'new:q', type: 'zset', value: [{ member: 'a', score: 'high' }] }), 'invalid');
    await rejectsWith(t, browser.insertRow('db3.new', { key: 'new:q', value: 'x', ttl: 0 }), 'invalid', /ttl/);
    await rejectsWith(t, browser.insertRow('db3.new', { key: 'new:q', value: { nested: { no: 1 } } }), 'invalid');
    await rejectsWith(t, browser.insertRow('db3.new', { key: 'new:q', value: 'x', extra: 1 }), 'invalid', /extra/);
    await rejectsWith(t, browser.insertRow('db3.new', { value: 'x' }), 'invalid', /key/);
    t.equal(await db3.exists('new:q'), 0, 'nothing written by refused inserts');
  });

  await t.test('update and delete rows', async (t) => {
    await db3.expire('new:h', 500);
    await browser.updateRow('db3.new', { key: 'new:h' }, { value: { only: 'this' } });
    t.same(await db3.hgetall('new:h'), { only: 'this' }, 'the value is replaced, not merged');
    const kept = await db3.ttl('new:h');
    t.ok(kept > 400 && kept <= 500, `the ttl stays when only the value changes (${kept})`);
    await browser.updateRow('db3.new', { key: 'new:h' }, { ttl: 30 });
    const set = await db3.ttl('new:h');
    t.ok(set > 0 && set <= 30, `ttl alone (${set})`);
    t.same(await db3.hgetall('new:h'), { only: 'this' }, 'a ttl change keeps the value');
    await browser.updateRow('db3.new', { key: 'new:h' }, { ttl: null });
    t.equal(await db3.ttl('new:h'), -1, 'ttl null removes it');
    await browser.updateRow('db3.new', { key: 'new:l' }, { value: ['only'], ttl: 20 });
    t.same(await db3.lrange('new:l', 0, -1), ['only']);
    t.ok((await db3.ttl('new:l')) > 0);
    await browser.updateRow('db3.new', { key: 'new:l' }, { type: 'set', value: ['p', 'q'] });
    t.equal(await db3.type('new:l'), 'set', 'the type may change with the value');
    await browser.updateRow('db3.new', { key: 'new:z' }, { value: [{ member: 'solo', score: 3 }] });
    t.same(await db3.call('ZRANGE', 'new:z', '0', '-1', 'WITHSCORES'), ['solo', '3'], 'the current type is kept when none is given');
    const row = (await browser.rows('db3.new', { limit: 10, offset: 0 })).rows.find((r) => r.key === 'new:z');
    t.same(row?.value, [{ member: 'solo', score: 3 }]);

    await rejectsWith(t, browser.updateRow('db3.new', { key: 'new:missing' }, { value: 'x' }), 'not_found');
    t.equal(await db3.exists('new:missing'), 0, 'an update does not create');
    await rejectsWith(t, browser.updateRow('db3.new', { key: 'new:s' }, {}), 'invalid');
    await rejectsWith(t, browser.updateRow('db3.new', { key: 'new:s' }, { value: [] }), 'invalid');
    await rejectsWith(t, browser.updateRow('db3.new', { key: 'new:s' }, { value: 'x', ttl: -5 }), 'invalid');
    t.equal(await db3.get('new:s'), 'a string', 'a refused update leaves the value');
    await rejectsWith(t, browser.updateRow('db3.new', { key: 'other:1' }, { value: 'x' }), 'invalid', /namespace/);
    await rejectsWith(t, browser.updateRow('db3.new', { id: 'new:s' }, { value: 'x' }), 'invalid');

    await browser.deleteRow('db3.new', { key: 'new:s' });
    t.equal(await db3.exists('new:s'), 0, 'deleted');
    await rejectsWith(t, browser.deleteRow('db3.new', { key: 'new:s' }), 'not_found', undefined, 'deleting twice');
    await rejectsWith(t, browser.deleteRow('db3.new', { key: 'other:1' }), 'invalid');
    t.equal(await db3.get('other:1'), 'in three', 'a key outside the namespace is untouched');
  });

  await t.test('unreachable servers and wrong passwords are unavailable', async (t) => {
    const closed = createRedisBrowser({ ...endpoint, port: await closedPort() });
    await rejectsWith(t, closed.ping(), 'unavailable');
    await rejectsWith(t, closed.tables({}), 'unavailable');
    await rejectsWith(t, closed.query('PING', { timeoutMs: 1000, maxRows: 1 }), 'unavailable');
    await closed.close();
    const wrong = createRedisBrowser({ ...endpoint, password: 'not-the-password' });
    await rejectsWith(t, wrong.ping(), 'unavailable', /WRONGPASS|invalid|NOAUTH/i);
    await wrong.close();
    t.same((await browser.query('PING', { timeoutMs: 2000, maxRows: 1 })).rows, [{ result: 'PONG' }], 'the right browser is unaffected');
  });
});
