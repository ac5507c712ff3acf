import { Redis, type RedisOptions } from 'ioredis';
import {
  BrowserError,
  parseTableId,
  type DatabaseBrowser,
  type EngineEndpoint,
  type PageRequest,
  type QueryLimits,
  type QueryResult,
  type RowsPage,
  type TableEntry,
} from './browser.js';
import { splitCommandLine } from './redis-command-line.js';

/**
 * The database browser for redis. "Tables" are key namespaces: the part of a key before its first `:`;
 * a key without `:` (or starting with one) is its own namespace. Schemas are the logical databases
 * `db0`…`db15`, so a table id is `db<N>.<namespace>`.
 *
 * Bounds (redis has no catalogue, so listing means walking the keyspace):
 * - `tables` and `rows` walk the keyspace with SCAN (never KEYS, which blocks the server) and stop after
 *   MAX_SCAN_CALLS calls of COUNT SCAN_COUNT, about MAX_SCAN_CALLS × SCAN_COUNT = 100,000 keys examined.
 *   On a larger keyspace the namespaces and counts listed, and the keys a namespace pages over, are the
 *   ones met in that part of the keyspace only: the answer is partial, never slow.
 * - Values in `rows` are bounded: strings to their first MAX_STRING_BYTES bytes (GETRANGE; a cut may split
 *   a UTF-8 character), lists, zsets and streams to their first MAX_ELEMENTS elements, sets and hashes to
 *   the first MAX_ELEMENTS members or fields SSCAN/HSCAN meets (in no particular order; sets are sorted
 *   after the cut). A value written back from a bounded row replaces the whole value with the bounded one.
 * - Keys are read as UTF-8 text: a key that is not valid UTF-8 cannot be addressed from here.
 *
 * Connections: one per logical database for browsing and edits (SELECT is connection state), made on first
 * use and remade after a failure; every `query` runs on a connection of its own to database 0, closed
 * afterwards, so a blocking command cut off by its deadline cannot hold up anything else.
 */

const SCAN_COUNT = 1000;
const MAX_SCAN_CALLS = 100;
const MAX_ELEMENTS = 100;
const MAX_STRING_BYTES = 64 * 1024;
/** Deadline of every command the browser sends itself (query has its own). */
const COMMAND_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 5_000;
const DATABASES = 16;

/**
 * Commands `query` refuses, and why. They either turn the connection into something that never gives one
 * reply (a push stream, a replication stream, no replies at all) or stop, stall or detach the server for
 * every client. Everything else runs, destructive commands included: the query console needs write access.
 */
const REFUSED: Record<string, string> = {
  MONITOR: 'streams every command forever instead of answering once',
  SUBSCRIBE: 'turns the connection into a subscription stream',
  PSUBSCRIBE: 'turns the connection into a subscription stream',
  SSUBSCRIBE: 'turns the connection into a subscription stream',
  UNSUBSCRIBE: 'belongs to a subscription stream',
  PUNSUBSCRIBE: 'belongs to a subscription stream',
  SUNSUBSCRIBE: 'belongs to a subscription stream',
  SYNC: 'turns the connection into a replication stream',
  PSYNC: 'turns the connection into a replication stream',
  HELLO: 'changes the protocol the browser reads replies in',
  SHUTDOWN: 'stops the server for everyone',
  DEBUG: 'can crash, stall or reload the server for everyone',
  REPLICAOF: 'makes the server a replica of another and discards its data',
  SLAVEOF: 'makes the server a replica of another and discards its data',
  FAILOVER: 'hands the server over to a replica',
};
const REFUSED_CLIENT_SUBCOMMANDS: Record<string, string> = {
  PAUSE: 'stalls every client of the server',
  REPLY: 'turns replies off, so the command would never answer',
};

type Row = Record<string, unknown>;

export function createRedisBrowser(endpoint: EngineEndpoint): DatabaseBrowser {
  const clients = new Map<number, { client: Redis; ready: Promise<Redis> }>();
  /** One WATCH … EXEC sequence at a time per connection (WATCH is connection state). */
  const writeLocks = new Map<number, Promise<void>>();
  const lastErrors = new WeakMap<Redis, Error>();

  function options(db: number, extra: RedisOptions = {}): RedisOptions {
    return {
      host: endpoint.host,
      port: endpoint.port,
      // AUTH <user> <password> needs redis 6; `default` is what AUTH <password> means anyway.
      ...(endpoint.user && endpoint.user !== 'default' ? { username: endpoint.user } : {}),
      ...(endpoint.password ? { password: endpoint.password } : {}),
      ...(endpoint.tls ? { tls: { ca: endpoint.tls.ca, servername: endpoint.tls.servername } } : {}),
      db,
      protocol: 2,
      disableClientInfo: true,
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      ...extra,
    };
  }

  function newClient(db: number, extra?: RedisOptions): Redis {
    const client = new Redis(options(db, extra));
    // ioredis emits connection and handshake failures (NOAUTH, ECONNREFUSED) as 'error' events as well as
    // rejecting the command or connect() they break: without a listener they would crash the process.
    client.on('error', (error: Error) => lastErrors.set(client, error));
    return client;
  }

  /** connect() rejects with a bare "Connection is closed." when the handshake fails: the 'error' event says why. */
  async function connect(client: Redis): Promise<void> {
    try {
      await client.connect();
    } catch (error) {
      const reason = lastErrors.get(client);
      throw asBrowserError(reason && reason.name === 'ReplyError' ? reason : error);
    }
  }

  function clientFor(db: number): Promise<Redis> {
    const cached = clients.get(db);
    if (cached && cached.client.status !== 'end' && cached.client.status !== 'close') return cached.ready;
    cached?.client.disconnect();
    const client = newClient(db);
    const entry = {
      client,
      ready: connect(client).then(
        () => client,
        (error: unknown) => {
          client.disconnect();
          if (clients.get(db) === entry) clients.delete(db);
          throw error;
        },
      ),
    };
    clients.set(db, entry);
    return entry.ready;
  }

  async function exclusive<T>(db: number, work: (client: Redis) => Promise<T>): Promise<T> {
    const previous = writeLocks.get(db) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const chained = previous.then(() => mine);
    writeLocks.set(db, chained);
    await previous;
    try {
      return await work(await clientFor(db));
    } finally {
      release();
      if (writeLocks.get(db) === chained) writeLocks.delete(db);
    }
  }

  /** Keys of `db`, filtered by `pattern` and `keep`, walking at most MAX_SCAN_CALLS SCAN calls. */
  async function scanKeys(client: Redis, pattern: string | null, keep: (key: string) => boolean): Promise<Set<string>> {
    const found = new Set<string>();
    let cursor = '0';
    let calls = 0;
    do {
      const [next, keys] = pattern === null ? await client.scan(cursor, 'COUNT', SCAN_COUNT) : await client.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      for (const key of keys) if (keep(key)) found.add(key);
      cursor = next;
      calls++;
    } while (cursor !== '0' && calls < MAX_SCAN_CALLS);
    return found;
  }

  async function namespaceKeys(client: Redis, namespace: string): Promise<string[]> {
    const keys = await scanKeys(client, escapeGlob(namespace) + '*', (key) => namespaceOf(key) === namespace);
    return [...keys].sort(compareText);
  }

  async function readValue(client: Redis, key: string, type: string): Promise<unknown> {
    switch (type) {
      case 'string':
        return client.getrange(key, 0, MAX_STRING_BYTES - 1);
      case 'list':
        return client.lrange(key, 0, MAX_ELEMENTS - 1);
      case 'set': {
        const members: string[] = [];
        let cursor = '0';
        do {
          const [next, batch] = await client.sscan(key, cursor, 'COUNT', MAX_ELEMENTS);
          members.push(...batch);
          cursor = next;
        } while (cursor !== '0' && members.length < MAX_ELEMENTS);
        return [...new Set(members)].slice(0, MAX_ELEMENTS).sort(compareText);
      }
      case 'hash': {
        const entries = new Map<string, string>();
        let cursor = '0';
        do {
          const [next, flat] = await client.hscan(key, cursor, 'COUNT', MAX_ELEMENTS);
          for (let i = 0; i + 1 < flat.length && entries.size < MAX_ELEMENTS; i += 2) entries.set(flat[i]!, flat[i + 1]!);
          cursor = next;
        } while (cursor !== '0' && entries.size < MAX_ELEMENTS);
        return Object.fromEntries(entries);
      }
      case 'zset': {
        // Protocol 2: a flat [member, score, member, score…] array of strings.
        const flat = (await client.call('ZRANGE', key, 0, MAX_ELEMENTS - 1, 'WITHSCORES')) as string[];
        const out: { member: string; score: number | string }[] = [];
        for (let i = 0; i + 1 < flat.length; i += 2) out.push({ member: flat[i]!, score: scoreOf(flat[i + 1]!) });
        return out;
      }
      case 'stream': {
        const entries = await client.xrange(key, '-', '+', 'COUNT', MAX_ELEMENTS);
        return entries.map(([id, fields]) => {
          const object: Record<string, string> = {};
          for (let i = 0; i + 1 < fields.length; i += 2) object[fields[i]!] = fields[i + 1]!;
          return { id, fields: object };
        });
      }
      default:
        // Module types (JSON, time series…) have their own commands; their values are not read here.
        return null;
    }
  }

  const browser: DatabaseBrowser = {
    engine: 'redis',

    async ping() {
      const client = await clientFor(0);
      await run(() => client.ping());
    },

    async tables({ database }) {
      const db = databaseNumber(database);
      const client = await clientFor(db);
      const counts = new Map<string, number>();
      const keys = await run(() => scanKeys(client, null, () => true));
      for (const key of keys) {
        const ns = namespaceOf(key);
        counts.set(ns, (counts.get(ns) ?? 0) + 1);
      }
      return [...counts.entries()]
        .sort(([a], [b]) => compareText(a, b))
        .map(([name, rowCount]): TableEntry => ({ id: `db${db}.${name}`, name, schema: `db${db}`, rowCount }));
    },

    async rows(table, page) {
      const { db, namespace } = parseTable(table);
      const { limit, offset } = checkPage(page);
      const client = await clientFor(db);
      return run(async (): Promise<RowsPage> => {
        const keys = await namespaceKeys(client, namespace);
        if (keys.length === 0) throw new BrowserError('not_found', `no keys in namespace ${JSON.stringify(namespace)} of db${db}`);
        const slice = keys.slice(offset, offset + limit);
        const described = await Promise.all(slice.map(async (key) => ({ key, type: await client.type(key), ttl: await client.ttl(key) })));
        const rows: Row[] = [];
        for (const { key, type, ttl } of described) {
          // Gone since the scan (ttl -2, type none): not a row any more.
          if (type === 'none' || ttl === -2) continue;
          rows.push({ key, type, ttl, value: await readValue(client, key, type) });
        }
        return {
          columns: [
            { name: 'key', type: 'string', primary: true },
            { name: 'type', type: 'string', primary: false },
            { name: 'ttl', type: 'integer', primary: false },
            { name: 'value', type: 'value', primary: false },
          ],
          rows,
          total: keys.length,
        };
      });
    },

    async query(text, limits) {
      const { timeoutMs, maxRows } = checkLimits(limits);
      const args = splitCommandLine(text);
      if (args.length === 0) throw new BrowserError('invalid', 'the command line is empty');
      const name = args[0]!.toString('utf8').toUpperCase();
      const refusal = REFUSED[name] ?? (name === 'CLIENT' && args[1] ? REFUSED_CLIENT_SUBCOMMANDS[args[1].toString('utf8').toUpperCase()] : undefined);
      if (refusal) throw new BrowserError('invalid', `${name}${name === 'CLIENT' ? ' ' + args[1]!.toString('utf8').toUpperCase() : ''} is not allowed here: it ${refusal}`);
      // A connection of its own: a command cut off by the deadline is ended with its connection, which
      // also makes the server drop a blocked client (BLPOP, WAIT, XREAD BLOCK) at once.
      const client = newClient(0, { commandTimeout: timeoutMs, connectTimeout: Math.min(CONNECT_TIMEOUT_MS, Math.max(timeoutMs, 1000)) });
      try {
        await connect(client);
        // The name goes out upper-cased: ioredis reshapes some replies (HGETALL into an object) only for
        // its lower-case command names, and the console shows redis's own reply.
        const reply: unknown = await client.call(name, ...args.slice(1)).catch((error: unknown) => {
          throw asBrowserError(error);
        });
        return replyToResult(reply, maxRows);
      } finally {
        client.disconnect();
      }
    },

    async insertRow(table, values) {
      const { db, namespace } = parseTable(table);
      checkFields(values, ['key', 'value', 'type', 'ttl'], 'values');
      const key = keyIn(namespace, values.key);
      const type = values.type === undefined ? inferType(values.value) : typeName(values.type);
      const writes = writeCommands(type, key, values.value);
      const ttl = ttlOf(values.ttl);
      await exclusive(db, (client) =>
        run(async () => {
          for (let attempt = 0; attempt < 3; attempt++) {
            await client.watch(key);
            try {
              if ((await client.exists(key)) > 0) throw new BrowserError('invalid', `key ${JSON.stringify(key)} already exists`);
            } catch (error) {
              await client.unwatch();
              throw error;
            }
            const multi = client.multi();
            for (const [command, ...args] of writes) multi.call(command, ...args);
            if (ttl !== null) multi.expire(key, ttl);
            if (checkExec(await multi.exec())) return;
            // Someone wrote the key between WATCH and EXEC: look again.
          }
          throw new BrowserError('engine', `key ${JSON.stringify(key)} kept changing while it was being written`);
        }),
      );
      return { id: key };
    },

    async updateRow(table, primaryKey, values) {
      const { db, namespace } = parseTable(table);
      checkFields(primaryKey, ['key'], 'primaryKey');
      checkFields(values, ['value', 'type', 'ttl'], 'values');
      const key = keyIn(namespace, primaryKey.key);
      if (values.value === undefined && values.ttl === undefined) throw new BrowserError('invalid', 'values must give a value, a ttl or both');
      const newTtl = values.ttl === undefined ? undefined : ttlOf(values.ttl);
      if (values.value === undefined && values.type !== undefined) throw new BrowserError('invalid', 'a type can only change with a value');
      await exclusive(db, (client) =>
        run(async () => {
          for (let attempt = 0; attempt < 3; attempt++) {
            await client.watch(key);
            const ops: [string, ...(string | number)[]][] = [];
            try {
              const current = await client.type(key);
              if (current === 'none') throw new BrowserError('not_found', `no key ${JSON.stringify(key)}`);
              if (values.value !== undefined) {
                const type = values.type === undefined ? current : typeName(values.type);
                const writes = writeCommands(type, key, values.value);
                // The value's TTL stays unless a new one is given.
                const keptMs = newTtl === undefined ? await client.pttl(key) : -1;
                ops.push(['DEL', key], ...writes);
                if (newTtl !== undefined && newTtl !== null) ops.push(['EXPIRE', key, newTtl]);
                else if (keptMs > 0) ops.push(['PEXPIRE', key, keptMs]);
              } else if (newTtl === null) ops.push(['PERSIST', key]);
              else if (newTtl !== undefined) ops.push(['EXPIRE', key, newTtl]);
            } catch (error) {
              await client.unwatch();
              throw error;
            }
            const multi = client.multi();
            for (const [command, ...args] of ops) multi.call(command, ...args);
            if (checkExec(await multi.exec())) return;
          }
          throw new BrowserError('engine', `key ${JSON.stringify(key)} kept changing while it was being written`);
        }),
      );
    },

    async deleteRow(table, primaryKey) {
      const { db, namespace } = parseTable(table);
      checkFields(primaryKey, ['key'], 'primaryKey');
      const key = keyIn(namespace, primaryKey.key);
      const client = await clientFor(db);
      const removed = await run(() => client.del(key));
      if (removed === 0) throw new BrowserError('not_found', `no key ${JSON.stringify(key)}`);
    },

    async close() {
      const all = [...clients.values()];
      clients.clear();
      for (const { client } of all) client.disconnect();
    },
  };
  return browser;
}

/** The namespace of a key: the part before its first `:`; a key without one (or starting with one) is its own. */
export function namespaceOf(key: string): string {
  const colon = key.indexOf(':');
  return colon > 0 ? key.slice(0, colon) : key;
}

/** SCAN MATCH pattern text matching `text` literally. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => '\\' + c);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function databaseNumber(database: number | undefined): number {
  if (database === undefined) return 0;
  if (!Number.isInteger(database) || database < 0 || database >= DATABASES) {
    throw new BrowserError('invalid', `database must be a whole number from 0 to ${DATABASES - 1}, got ${String(database)}`);
  }
  return database;
}

function parseTable(table: string): { db: number; namespace: string } {
  const { schema, name } = parseTableId(table);
  const m = /^db(\d{1,2})$/.exec(schema);
  const db = m ? Number(m[1]) : NaN;
  if (!m || db >= DATABASES || String(db) !== m[1]) throw new BrowserError('invalid', `a redis table is db<0-${DATABASES - 1}>.<namespace>, got ${JSON.stringify(table)}`);
  return { db, namespace: name };
}

function checkPage(page: PageRequest): PageRequest {
  if (!Number.isSafeInteger(page.limit) || page.limit < 1) throw new BrowserError('invalid', 'limit must be a positive whole number');
  if (!Number.isSafeInteger(page.offset) || page.offset < 0) throw new BrowserError('invalid', 'offset must be a whole number, 0 or more');
  return page;
}

function checkLimits(limits: QueryLimits): QueryLimits {
  if (!Number.isFinite(limits.timeoutMs) || limits.timeoutMs <= 0) throw new BrowserError('invalid', 'timeoutMs must be a positive number');
  if (!Number.isSafeInteger(limits.maxRows) || limits.maxRows < 1) throw new BrowserError('invalid', 'maxRows must be a positive whole number');
  return limits;
}

function checkFields(object: Record<string, unknown>, allowed: string[], what: string): void {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) throw new BrowserError('invalid', `${what} must be an object`);
  const extra = Object.keys(object).filter((k) => !allowed.includes(k));
  if (extra.length > 0) throw new BrowserError('invalid', `${what} may only have ${allowed.join(', ')}; unknown: ${extra.join(', ')}`);
}

function keyIn(namespace: string, key: unknown): string {
  if (typeof key !== 'string' || key.length === 0) throw new BrowserError('invalid', 'key must be a non-empty string');
  if (namespaceOf(key) !== namespace) throw new BrowserError('invalid', `key ${JSON.stringify(key)} is not in namespace ${JSON.stringify(namespace)}`);
  return key;
}

const WRITABLE_TYPES = ['string', 'list', 'set', 'hash', 'zset'] as const;
type WritableType = (typeof WRITABLE_TYPES)[number];

function typeName(type: unknown): string {
  if (typeof type !== 'string') throw new BrowserError('invalid', 'type must be a string');
  return type;
}

function inferType(value: unknown): WritableType {
  if (typeof value === 'string' || typeof value === 'number') return 'string';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object' && value !== null) return 'hash';
  throw new BrowserError('invalid', 'value must be a string, an array or an object (or give a type)');
}

function ttlOf(ttl: unknown): number | null {
  if (ttl === undefined || ttl === null || ttl === -1) return null;
  if (typeof ttl !== 'number' || !Number.isSafeInteger(ttl) || ttl < 1) throw new BrowserError('invalid', 'ttl must be a whole number of seconds, 1 or more (or -1 / null for none)');
  return ttl;
}

function element(value: unknown, what: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new BrowserError('invalid', `${what} must be a string or a number`);
}

function nonEmptyArray(value: unknown, type: string): unknown[] {
  if (!Array.isArray(value) || value.length === 0) throw new BrowserError('invalid', `a ${type} value must be a non-empty array (redis keeps no empty ${type}s)`);
  return value;
}

/** The commands that write `value` as a new `type` value at `key` (the key must not exist when they run). */
export function writeCommands(type: string, key: string, value: unknown): [string, ...string[]][] {
  if (!(WRITABLE_TYPES as readonly string[]).includes(type)) throw new BrowserError('invalid', `type must be one of ${WRITABLE_TYPES.join(', ')}, got ${JSON.stringify(type)}`);
  switch (type as WritableType) {
    case 'string':
      return [['SET', key, element(value, 'a string value')]];
    case 'list':
      return [['RPUSH', key, ...nonEmptyArray(value, 'list').map((v) => element(v, 'a list element'))]];
    case 'set':
      return [['SADD', key, ...nonEmptyArray(value, 'set').map((v) => element(v, 'a set member'))]];
    case 'hash': {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0) {
        throw new BrowserError('invalid', 'a hash value must be a non-empty object of field → value');
      }
      const args: string[] = [];
      for (const [field, v] of Object.entries(value)) args.push(field, element(v, `hash field ${JSON.stringify(field)}`));
      return [['HSET', key, ...args]];
    }
    case 'zset': {
      const args: string[] = [];
      for (const entry of nonEmptyArray(value, 'zset')) {
        if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new BrowserError('invalid', 'a zset value is an array of { member, score }');
        const { member, score } = entry as { member?: unknown; score?: unknown };
        const s = typeof score === 'number' ? score : typeof score === 'string' ? Number(score) : NaN;
        if (Number.isNaN(s)) throw new BrowserError('invalid', 'a zset score must be a number');
        args.push(s === Infinity ? '+inf' : s === -Infinity ? '-inf' : String(s), element(member, 'a zset member'));
      }
      return [['ZADD', key, ...args]];
    }
  }
}

function scoreOf(text: string): number | string {
  const n = Number(text);
  // inf and -inf have no JSON number: they stay text.
  return Number.isFinite(n) ? n : text;
}

/** True when EXEC ran (false: a watched key changed); an error inside the transaction is the engine's. */
function checkExec(results: [Error | null, unknown][] | null): boolean {
  if (results === null) return false;
  for (const [error] of results) if (error) throw new BrowserError('engine', error.message);
  return true;
}

function replyType(reply: unknown): string {
  if (reply === null || reply === undefined) return 'nil';
  if (typeof reply === 'number' || typeof reply === 'bigint') return 'integer';
  if (Array.isArray(reply)) return 'array';
  if (reply instanceof Error) return 'error';
  return 'string';
}

function plain(reply: unknown): unknown {
  if (Array.isArray(reply)) return reply.map(plain);
  if (reply instanceof Error) return { error: reply.message };
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  if (typeof reply === 'bigint') return reply.toString();
  return reply ?? null;
}

function replyToResult(reply: unknown, maxRows: number): QueryResult {
  const columns = [{ name: 'result', type: replyType(reply) }];
  if (Array.isArray(reply)) {
    const rows = reply.slice(0, maxRows).map((element) => ({ result: plain(element) }));
    return { columns, rows, rowCount: rows.length, truncated: reply.length > maxRows };
  }
  return { columns, rows: [{ result: plain(reply) }], rowCount: 1, truncated: false };
}

async function run<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asBrowserError(error);
  }
}

/** The BrowserError an ioredis failure stands for; anything else (a bug) is answered as it is. */
function asBrowserError(error: unknown): Error {
  if (error instanceof BrowserError) return error;
  if (!(error instanceof Error)) return new Error(String(error));
  const message = error.message;
  if (message === 'Command timed out') return new BrowserError('timeout', 'the command did not answer within the time limit');
  if (error.name === 'ReplyError') {
    // The server refuses Slipway's credentials, or is still loading its data: not the request's fault.
    if (/^(NOAUTH|WRONGPASS|LOADING|MASTERDOWN)\b/.test(message)) return new BrowserError('unavailable', message);
    return new BrowserError('engine', message);
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || error.name === 'MaxRetriesPerRequestError' || CONNECTION_FAILURE.test(message)) {
    return new BrowserError('unavailable', `redis cannot be reached: ${message}`);
  }
  return error;
}

const CONNECTION_FAILURE = /Connection is closed|Stream isn't writeable|connect E[A-Z]+|ECONNRESET|EPIPE|socket|max retries/i;
