import { MongoClient, ObjectId } from 'mongodb';
import t from 'tap';
import { failure, rejectsWith } from '../helpers/browser-errors.js';
import { freePort as closedPort } from '../helpers/net.js';
import type { EngineEndpoint } from '../../src/engines/browser.js';
import { bsonTypeName, columnsOf, createMongoBrowser, idFrom, parseCommand } from '../../src/engines/mongodb-browser.js';

const URL_VARIABLE = process.env.MONGODB_TEST_URL;
const SKIP = URL_VARIABLE ? false : 'MONGODB_TEST_URL is not set: no MongoDB server can be installed here';

/** The endpoint a `mongodb://user:password@host:port/` URL names, on a database of this run's own. */
function endpointOf(url: string, database: string): EngineEndpoint {
  const parsed = new URL(url);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: Number(parsed.port || 27017),
    user: parsed.username ? decodeURIComponent(parsed.username) : null,
    password: parsed.password ? decodeURIComponent(parsed.password) : null,
    database,
    tls: null,
  };
}

// The pure parts need no server.
t.test('command documents, ids and column types', async (t) => {
  t.same(parseCommand('{"find": "users", "filter": {"age": {"$gt": 3}}}'), { find: 'users', filter: { age: { $gt: 3 } } });
  t.ok(parseCommand('{"find": "u", "filter": {"_id": {"$oid": "64b7f0c2a1b2c3d4e5f60718"}}}').filter._id instanceof ObjectId, 'EJSON in commands');
  for (const text of ['', 'not json', '[]', '{}', '"find"', 'null']) {
    t.equal((await failure(Promise.resolve().then(() => parseCommand(text)))).kind, 'invalid', JSON.stringify(text));
  }
  const oid = idFrom('64b7f0c2a1b2c3d4e5f60718');
  t.ok(oid instanceof ObjectId, '24 hex digits are an ObjectId');
  t.equal(idFrom('not-an-oid'), 'not-an-oid', 'other strings are taken as given');
  t.equal(idFrom(42), 42);
  t.ok(idFrom({ $oid: '64b7f0c2a1b2c3d4e5f60718' }) instanceof ObjectId, 'EJSON ids');
  t.equal(bsonTypeName(new ObjectId()), 'objectId');
  t.equal(bsonTypeName(new Date()), 'date');
  t.equal(bsonTypeName([1]), 'array');
  t.equal(bsonTypeName({ a: 1 }), 'object');
  t.same(columnsOf([{ _id: new ObjectId(), a: 1 }, { _id: new ObjectId(), a: 'x', b: null }]), [
    { name: '_id', type: 'objectId', primary: true },
    { name: 'a', type: 'mixed', primary: false },
    { name: 'b', type: 'null', primary: false },
  ]);
});

t.test('MongoDB browser against a real server', { skip: SKIP }, async (t) => {
  const url = URL_VARIABLE!;
  const database = `slipway_browser_${process.pid}_${Date.now().toString(36)}`;
  const admin = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
  await admin.connect();
  const db = admin.db(database);
  t.teardown(async () => {
    await db.dropDatabase().catch(() => undefined);
    await admin.close();
  });
  const browser = createMongoBrowser(endpointOf(url, database));
  t.teardown(() => browser.close());
  await browser.ping();

  const ids = [new ObjectId('64b7f0c2a1b2c3d4e5f60701'), new ObjectId('64b7f0c2a1b2c3d4e5f60702'), new ObjectId('64b7f0c2a1b2c3d4e5f60703')];
  await db.collection('users').insertMany([
    { _id: ids[2], name: 'Cy', age: 30, joined: new Date('2024-01-03T00:00:00Z') },
    { _id: ids[0], name: 'Ada', age: 36, tags: ['admin'] },
    { _id: ids[1], name: 'Bob', nested: { a: 1 } },
  ]);
  await db.collection('empty').insertOne({ _id: 'x' as unknown as ObjectId });
  await db.collection('empty').deleteMany({});

  await t.test('collections are tables', async (t) => {
    const tables = await browser.tables({});
    t.same(
      tables.map((e) => [e.id, e.schema, e.name, e.rowCount]),
      [
        [`${database}.empty`, database, 'empty', 0],
        [`${database}.users`, database, 'users', 3],
      ],
    );
  });

  await t.test('documents in _id order, as Extended JSON', async (t) => {
    const page = await browser.rows(`${database}.users`, { limit: 10, offset: 0 });
    t.equal(page.total, 3);
    t.same(
      page.rows.map((r) => r.name),
      ['Ada', 'Bob', 'Cy'],
    );
    t.same(page.rows[0], { _id: { $oid: ids[0]!.toHexString() }, name: 'Ada', age: 36, tags: ['admin'] });
    t.same(page.rows[2]!.joined, { $date: '2024-01-03T00:00:00Z' });
    t.same(
      page.columns.map((c) => [c.name, c.type, c.primary]),
      [
        ['_id', 'objectId', true],
        ['name', 'string', false],
        ['age', 'number', false],
        ['tags', 'array', false],
        ['nested', 'object', false],
        ['joined', 'date', false],
      ],
    );
    const second = await browser.rows(`${database}.users`, { limit: 1, offset: 1 });
    t.same(
      second.rows.map((r) => r.name),
      ['Bob'],
    );
    await rejectsWith(t, browser.rows(`${database}.nope`, { limit: 10, offset: 0 }), 'not_found');
    await rejectsWith(t, browser.rows(`other.users`, { limit: 10, offset: 0 }), 'not_found');
    await rejectsWith(t, browser.rows('users', { limit: 10, offset: 0 }), 'invalid');
  });

  await t.test('query: command documents', async (t) => {
    const found = await browser.query('{"find": "users", "filter": {"age": {"$gte": 30}}, "sort": {"name": 1}}', { timeoutMs: 5000, maxRows: 10 });
    t.same(
      found.rows.map((r) => r.name),
      ['Ada', 'Cy'],
    );
    t.equal(found.rowCount, 2);
    t.equal(found.truncated, false);
    await db.collection('many').insertMany(Array.from({ length: 250 }, (_, i) => ({ i })));
    const capped = await browser.query('{"find": "many", "sort": {"i": 1}, "batchSize": 7}', { timeoutMs: 5000, maxRows: 30 });
    t.equal(capped.rows.length, 30, 'first batch and getMore up to the cap');
    t.equal(capped.truncated, true);
    t.same(
      capped.rows.slice(0, 3).map((r) => r.i),
      [0, 1, 2],
    );
    const agg = await browser.query('{"aggregate": "users", "pipeline": [{"$group": {"_id": null, "n": {"$sum": 1}}}]}', { timeoutMs: 5000, maxRows: 10 });
    t.same(agg.rows, [{ _id: null, n: 3 }]);
    const count = await browser.query('{"count": "users"}', { timeoutMs: 5000, maxRows: 10 });
    t.equal(count.rows[0]!.n, 3, 'a reply without a cursor is one row');
    await rejectsWith(t, browser.query('{"nosuchcommand": 1}', { timeoutMs: 5000, maxRows: 10 }), 'engine', /no such command/i);
    await rejectsWith(t, browser.query('{"find": ', { timeoutMs: 5000, maxRows: 10 }), 'invalid');
    await rejectsWith(t, browser.query('{"shutdown": 1}', { timeoutMs: 5000, maxRows: 10 }), 'invalid', /not allowed/);
    const started = Date.now();
    await rejectsWith(
      t,
      browser.query('{"find": "many", "filter": {"$where": "sleep(100) || true"}}', { timeoutMs: 500, maxRows: 10 }),
      'timeout',
    );
    t.ok(Date.now() - started < 3000, 'answered near the deadline');
    t.equal((await browser.tables({})).length, 3, 'the browser is still usable');
  });

  await t.test('insert, update and delete by _id', async (t) => {
    const table = `${database}.users`;
    const made = await browser.insertRow(table, { name: 'Dee', born: { $date: '2000-01-01T00:00:00Z' }, big: { $numberLong: '9007199254740993' } });
    t.match(made.id, /^[0-9a-f]{24}$/, 'a generated ObjectId as hex');
    const stored = await db.collection('users').findOne({ _id: new ObjectId(made.id as string) });
    t.ok(stored?.born instanceof Date, 'EJSON dates are stored as dates');
    t.equal(String(stored?.big), '9007199254740993', 'EJSON longs keep every digit');
    t.same(await browser.insertRow(table, { _id: 'custom-id', name: 'Eve' }), { id: 'custom-id' }, 'other _id types as given');
    await rejectsWith(t, browser.insertRow(table, { _id: 'custom-id', name: 'again' }), 'engine', /duplicate key/);
    await rejectsWith(t, browser.insertRow(`${database}.nope`, { name: 'x' }), 'not_found');

    await browser.updateRow(table, { _id: ids[0]!.toHexString() }, { age: 37, "name'); db.dropDatabase(); //": 'kept as a field name' });
    const ada = await db.collection('users').findOne({ _id: ids[0] });
    t.equal(ada?.age, 37);
    t.equal(ada?.name, 'Ada', 'other fields stay');
    await browser.updateRow(table, { _id: { $oid: ids[1]!.toHexString() } }, { name: 'Robert' });
    t.equal((await db.collection('users').findOne({ _id: ids[1] }))?.name, 'Robert', 'an EJSON _id works too');
    await rejectsWith(t, browser.updateRow(table, { _id: '64b7f0c2a1b2c3d4e5f6ffff' }, { name: 'x' }), 'not_found');
    await rejectsWith(t, browser.updateRow(table, { _id: ids[0]!.toHexString() }, { _id: 'new' }), 'invalid');
    await rejectsWith(t, browser.updateRow(table, { name: 'Ada' }, { age: 1 }), 'invalid');

    await browser.deleteRow(table, { _id: 'custom-id' });
    t.equal(await db.collection('users').countDocuments({ _id: 'custom-id' as unknown as ObjectId }), 0);
    await rejectsWith(t, browser.deleteRow(table, { _id: 'custom-id' }), 'not_found');
  });

  await t.test('an unreachable server is unavailable', async (t) => {
    const closed = createMongoBrowser({ ...endpointOf(url, database), port: await closedPort() });
    await rejectsWith(t, closed.ping(), 'unavailable');
    await closed.close();
  });
});
