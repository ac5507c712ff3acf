import { BSON, MongoClient, MongoError, MongoServerError, ObjectId, type ClientSession, type Db, type Document } from 'mongodb';
import {
  BrowserError,
  parseTableId,
  type ColumnInfo,
  type DatabaseBrowser,
  type EngineEndpoint,
  type QueryResult,
  type RowsPage,
  type TableEntry,
} from './browser.js';

/**
 * The database browser for MongoDB. Tables are the collections (and views) of the endpoint's database;
 * rows are documents in `_id` order, their columns the union of the top-level fields of the page.
 *
 * Values travel as Extended JSON (bson's EJSON): documents go out in relaxed form (`{"$oid": …}`,
 * `{"$date": …}`, plain numbers) and values coming in may use either form. An `_id` given as a 24-digit
 * hex string is an ObjectId; any other `_id` is taken as given (after EJSON decoding).
 *
 * `query` takes one command document in EJSON (`{"find": "users", "filter": {…}}`) and runs it with
 * `db.command`. Commands that answer a cursor give their documents as rows (first batch, then getMore
 * in the same session until maxRows + 1 documents, then the cursor is killed); any other reply is one
 * row. Time is bounded by a client-side deadline (an abort signal: the driver closes the connection the
 * command is on) and, for the commands that take it, by `maxTimeMS` on the server.
 */

const BROWSE_TIMEOUT_MS = 30_000;
/** Collections are counted with estimatedDocumentCount (metadata); views by counting, up to this many. */
const VIEW_COUNT_LIMIT = 10_000;

/** Commands that take maxTimeMS and get the query's deadline as one when they give none. */
const MAX_TIME_COMMANDS = new Set(['find', 'aggregate', 'count', 'distinct', 'findAndModify', 'findandmodify', 'mapReduce', 'mapreduce']);

/** Commands the console refuses: they stop the server, freeze its writes or change its replica set for everyone. */
const REFUSED: Record<string, string> = {
  shutdown: 'stops the server for everyone',
  fsync: 'can lock the server against writes for everyone',
  replSetStepDown: 'changes the replica set for everyone',
  replSetReconfig: 'changes the replica set for everyone',
  replSetFreeze: 'changes the replica set for everyone',
  replSetInitiate: 'changes the replica set for everyone',
};

export function createMongoBrowser(endpoint: EngineEndpoint): DatabaseBrowser {
  const dbName = endpoint.database ?? 'test';
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  const client = new MongoClient(`mongodb://${host}:${endpoint.port}/`, {
    ...(endpoint.user ? { auth: { username: endpoint.user, password: endpoint.password ?? '' }, authSource: 'admin' } : {}),
    ...(endpoint.tls ? { tls: true, ca: endpoint.tls.ca, servername: endpoint.tls.servername } : {}),
    directConnection: true,
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    appName: 'slipway-browser',
  });
  const db: Db = client.db(dbName);

  /** Runs `work` with an abort signal that fires after `timeoutMs` with a 'timeout' BrowserError. */
  async function withDeadline<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new BrowserError('timeout', `the command did not finish within ${timeoutMs} ms and was cancelled`)),
      timeoutMs,
    );
    // Operations that take no signal (writes) are still answered at the deadline; they may finish later.
    const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true }));
    aborted.catch(() => undefined);
    try {
      return await Promise.race([work(controller.signal), aborted]);
    } catch (error) {
      if (controller.signal.aborted && !(error instanceof BrowserError)) {
        throw new BrowserError('timeout', `the command did not finish within ${timeoutMs} ms and was cancelled`);
      }
      throw asBrowserError(error);
    } finally {
      clearTimeout(timer);
    }
  }

  async function collectionInfo(table: string): Promise<{ name: string; type: string }> {
    const { schema, name } = parseTableId(table);
    if (schema !== dbName) throw new BrowserError('not_found', `no collection ${JSON.stringify(table)} (collections are in ${dbName})`);
    const found = await withDeadline(BROWSE_TIMEOUT_MS, (signal) => db.listCollections({ name }, { nameOnly: false, signal }).toArray());
    const info = found[0];
    if (!info) throw new BrowserError('not_found', `no collection ${JSON.stringify(table)}`);
    return { name: info.name, type: info.type ?? 'collection' };
  }

  async function countOf(name: string, type: string): Promise<number> {
    const collection = db.collection(name);
    if (type === 'collection') return collection.estimatedDocumentCount({ maxTimeMS: 5_000 });
    return collection.countDocuments({}, { limit: VIEW_COUNT_LIMIT, maxTimeMS: 5_000 });
  }

  const browser: DatabaseBrowser = {
    engine: 'mongodb',

    async ping() {
      await withDeadline(10_000, (signal) => db.command({ ping: 1 }, { signal }));
    },

    async tables() {
      const infos = await withDeadline(BROWSE_TIMEOUT_MS, (signal) => db.listCollections({}, { nameOnly: false, signal }).toArray());
      const entries: TableEntry[] = [];
      for (const info of infos.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const type = info.type ?? 'collection';
        const rowCount = await withDeadline(BROWSE_TIMEOUT_MS, () => countOf(info.name, type)).catch((error: unknown) => {
          if (error instanceof BrowserError && error.kind === 'unavailable') throw error;
          return 0;
        });
        entries.push({ id: `${dbName}.${info.name}`, name: info.name, schema: dbName, rowCount });
      }
      return entries;
    },

    async rows(table, page) {
      if (!Number.isSafeInteger(page.limit) || page.limit < 1) throw new BrowserError('invalid', 'limit must be a positive whole number');
      if (!Number.isSafeInteger(page.offset) || page.offset < 0) throw new BrowserError('invalid', 'offset must be a whole number, 0 or more');
      const info = await collectionInfo(table);
      const collection = db.collection(info.name);
      const docs = await withDeadline(BROWSE_TIMEOUT_MS, (signal) =>
        collection.find({}, { sort: { _id: 1 }, skip: page.offset, limit: page.limit, signal }).toArray(),
      );
      const total = await withDeadline(BROWSE_TIMEOUT_MS, () => countOf(info.name, info.type));
      const result: RowsPage = { columns: columnsOf(docs), rows: docs.map(toEjson), total };
      return result;
    },

    async query(text, limits) {
      if (!Number.isFinite(limits.timeoutMs) || limits.timeoutMs <= 0) throw new BrowserError('invalid', 'timeoutMs must be a positive number');
      if (!Number.isSafeInteger(limits.maxRows) || limits.maxRows < 1) throw new BrowserError('invalid', 'maxRows must be a positive whole number');
      const doc = parseCommand(text);
      const name = Object.keys(doc)[0]!;
      const refusal = REFUSED[name];
      if (refusal) throw new BrowserError('invalid', `${name} is not allowed here: it ${refusal}`);
      if (MAX_TIME_COMMANDS.has(name)) {
        const given = typeof doc.maxTimeMS === 'number' ? doc.maxTimeMS : Infinity;
        doc.maxTimeMS = Math.max(1, Math.min(given, Math.ceil(limits.timeoutMs)));
      }
      // Ask for no more than the cap in the first batch.
      if (name === 'find' && doc.batchSize === undefined) doc.batchSize = limits.maxRows + 1;
      if (name === 'aggregate' && doc.cursor === undefined) doc.cursor = { batchSize: limits.maxRows + 1 };
      const session = client.startSession();
      try {
        return await withDeadline(limits.timeoutMs, (signal) => runCommand(db, session, doc, limits.maxRows, signal));
      } finally {
        await session.endSession().catch(() => undefined);
      }
    },

    async insertRow(table, values) {
      const info = await collectionInfo(table);
      const document = fromEjson(values, 'values');
      if (document._id !== undefined) document._id = idFrom(values._id);
      const inserted = await withDeadline(BROWSE_TIMEOUT_MS, () => db.collection(info.name).insertOne(document));
      return { id: idOut(inserted.insertedId) };
    },

    async updateRow(table, primaryKey, values) {
      const info = await collectionInfo(table);
      const filter = idFilter(primaryKey);
      const changes = fromEjson(values, 'values');
      if (Object.keys(changes).length === 0) throw new BrowserError('invalid', 'values must name at least one field');
      if ('_id' in changes) throw new BrowserError('invalid', '_id cannot be changed');
      const result = await withDeadline(BROWSE_TIMEOUT_MS, () => db.collection(info.name).updateOne(filter, { $set: changes }));
      if (result.matchedCount === 0) throw new BrowserError('not_found', `no document with that _id in ${info.name}`);
    },

    async deleteRow(table, primaryKey) {
      const info = await collectionInfo(table);
      const filter = idFilter(primaryKey);
      const result = await withDeadline(BROWSE_TIMEOUT_MS, () => db.collection(info.name).deleteOne(filter));
      if (result.deletedCount === 0) throw new BrowserError('not_found', `no document with that _id in ${info.name}`);
    },

    async close() {
      await client.close();
    },
  };
  return browser;
}

async function runCommand(db: Db, session: ClientSession, doc: Document, maxRows: number, signal: AbortSignal): Promise<QueryResult> {
  // Cursor ids are 64-bit: keep them as Long so getMore sends them back as they came.
  const options = { session, signal, promoteLongs: false };
  const reply = await db.command(doc, options);
  const cursor = reply.cursor as { id?: unknown; ns?: unknown; firstBatch?: unknown } | undefined;
  if (cursor && typeof cursor === 'object' && Array.isArray(cursor.firstBatch)) {
    const docs: Document[] = [...(cursor.firstBatch as Document[])];
    let id = cursor.id;
    const ns = typeof cursor.ns === 'string' ? cursor.ns : '';
    const collection = ns.slice(ns.indexOf('.') + 1);
    while (!isZeroId(id) && docs.length <= maxRows) {
      const more = await db.command({ getMore: id, collection, batchSize: maxRows + 1 - docs.length }, options);
      const next = more.cursor as { id?: unknown; nextBatch?: unknown } | undefined;
      if (!next || !Array.isArray(next.nextBatch)) break;
      docs.push(...(next.nextBatch as Document[]));
      id = next.id;
    }
    if (!isZeroId(id)) await db.command({ killCursors: collection, cursors: [id] }, { session }).catch(() => undefined);
    const kept = docs.slice(0, maxRows);
    return { columns: columnsOf(kept).map(({ name, type }) => ({ name, type })), rows: kept.map(toEjson), rowCount: kept.length, truncated: docs.length > maxRows };
  }
  const n = typeof reply.n === 'number' ? reply.n : 1;
  return { columns: columnsOf([reply]).map(({ name, type }) => ({ name, type })), rows: [toEjson(reply)], rowCount: n, truncated: false };
}

function isZeroId(id: unknown): boolean {
  if (id === undefined || id === null) return true;
  if (typeof id === 'number' || typeof id === 'bigint') return Number(id) === 0;
  if (id instanceof BSON.Long) return id.isZero();
  return false;
}

/** One command document from EJSON text; the command name is its first field. */
export function parseCommand(text: string): Document {
  let doc: unknown;
  try {
    doc = BSON.EJSON.parse(text, { relaxed: true });
  } catch (error) {
    throw new BrowserError('invalid', `the command must be one JSON (Extended JSON) document: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || Object.keys(doc).length === 0) {
    throw new BrowserError('invalid', 'the command must be a non-empty JSON object such as {"find": "users", "filter": {}}');
  }
  return doc as Document;
}

function fromEjson(values: Record<string, unknown>, what: string): Document {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) throw new BrowserError('invalid', `${what} must be an object`);
  try {
    return BSON.EJSON.deserialize(values, { relaxed: true }) as Document;
  } catch (error) {
    throw new BrowserError('invalid', `${what} is not valid Extended JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** An `_id` from the wire: 24 hex digits are an ObjectId, anything else is decoded as EJSON. */
export function idFrom(value: unknown): unknown {
  if (typeof value === 'string' && /^[0-9a-fA-F]{24}$/.test(value)) return new ObjectId(value);
  if (value === undefined) throw new BrowserError('invalid', '_id is required');
  try {
    return (BSON.EJSON.deserialize({ v: value }, { relaxed: true }) as { v: unknown }).v;
  } catch (error) {
    throw new BrowserError('invalid', `_id is not valid Extended JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** An `_id` for the wire: an ObjectId as its hex string (what idFrom reads back), anything else as EJSON. */
function idOut(id: unknown): unknown {
  if (id instanceof ObjectId) return id.toHexString();
  return (BSON.EJSON.serialize({ v: id }, { relaxed: true }) as { v: unknown }).v;
}

function idFilter(primaryKey: Record<string, unknown>): Document {
  if (typeof primaryKey !== 'object' || primaryKey === null || Array.isArray(primaryKey)) throw new BrowserError('invalid', 'primaryKey must be an object');
  const keys = Object.keys(primaryKey);
  if (keys.length !== 1 || keys[0] !== '_id') throw new BrowserError('invalid', 'primaryKey must be { _id }');
  return { _id: idFrom(primaryKey._id) };
}

function toEjson(doc: Document): Record<string, unknown> {
  return BSON.EJSON.serialize(doc, { relaxed: true }) as Record<string, unknown>;
}

const BSON_TYPE_NAMES: Record<string, string> = {
  ObjectId: 'objectId',
  Decimal128: 'decimal',
  Binary: 'binData',
  UUID: 'binData',
  Timestamp: 'timestamp',
  Long: 'long',
  Int32: 'int',
  Double: 'double',
  Code: 'javascript',
  BSONRegExp: 'regex',
  MinKey: 'minKey',
  MaxKey: 'maxKey',
  DBRef: 'dbPointer',
  BSONSymbol: 'symbol',
};

/** MongoDB's name for the type of a decoded value (`$type` names; plain JS numbers are `number`). */
export function bsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'bigint') return 'long';
  if (value instanceof Date) return 'date';
  if (value instanceof RegExp) return 'regex';
  if (Array.isArray(value)) return 'array';
  const tag = (value as { _bsontype?: unknown })._bsontype;
  if (typeof tag === 'string') return BSON_TYPE_NAMES[tag] ?? tag;
  return 'object';
}

/** The union of the top-level fields of `docs`, `_id` first, typed by their values (`mixed` when they differ). */
export function columnsOf(docs: Document[]): ColumnInfo[] {
  const types = new Map<string, string>();
  types.set('_id', '');
  for (const doc of docs) {
    for (const [field, value] of Object.entries(doc)) {
      const type = bsonTypeName(value);
      const seen = types.get(field);
      if (seen === undefined || seen === '') types.set(field, type);
      else if (seen !== type && type !== 'null') types.set(field, seen === 'null' ? type : 'mixed');
    }
  }
  if (types.get('_id') === '') types.set('_id', 'objectId');
  return [...types.entries()].map(([name, type]) => ({ name, type, primary: name === '_id' }));
}

function asBrowserError(error: unknown): Error {
  if (error instanceof BrowserError) return error;
  if (!(error instanceof Error)) return new Error(String(error));
  if (error instanceof MongoServerError) {
    // 50 MaxTimeMSExpired; 18 AuthenticationFailed, 13 Unauthorized for Slipway's own user.
    if (error.code === 50) return new BrowserError('timeout', error.message);
    if (error.code === 18) return new BrowserError('unavailable', error.message);
    return new BrowserError('engine', error.message);
  }
  if (error instanceof MongoError) {
    const name = error.name;
    if (/Network|ServerSelection|Topology|NotConnected|ClientClosed/.test(name)) return new BrowserError('unavailable', `MongoDB cannot be reached: ${error.message}`);
    if (name === 'MongoOperationTimeoutError') return new BrowserError('timeout', error.message);
    if (name === 'MongoInvalidArgumentError' || name === 'BSONError') return new BrowserError('invalid', error.message);
    return new BrowserError('engine', error.message);
  }
  if (error.name === 'BSONError') return new BrowserError('invalid', error.message);
  return error;
}
