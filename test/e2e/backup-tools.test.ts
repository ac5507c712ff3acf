import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import type { Engine } from '../../commands/service/fields.js';
import { BACKUP_FORMATS, BackupToolError, dumpDatabase, restoreDatabase, type BackupTarget } from '../../src/engines/backup-tools.js';
import type { DatabaseBrowser, EngineEndpoint } from '../../src/engines/browser.js';
import { createClickhouseBrowser } from '../../src/engines/clickhouse-browser.js';
import { createMysqlBrowser } from '../../src/engines/mysql-browser.js';
import { createPostgresBrowser } from '../../src/engines/postgres-browser.js';
import { createRedisBrowser } from '../../src/engines/redis-browser.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { createDockerRuntime } from '../../src/runtime/docker-runtime.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { requireDbImages, startEngineContainer, type EngineContainer } from '../helpers/engine-containers.js';

const LIMITS = { timeoutMs: 10_000, maxRows: 1_000 };
const SIGNAL = () => AbortSignal.timeout(120_000);

/** Every command line run in a container, to show no password is ever on one. */
const argvSeen: string[][] = [];
const docker_ = createDockerRuntime({ socketPath: '/var/run/docker.sock', instance: 'test', callTimeoutMs: 30_000 });
const runtime: ContainerRuntime = {
  ...docker_,
  exec(name, spec, signal) {
    argvSeen.push(spec.cmd);
    return docker_.exec(name, spec, signal);
  },
};

/** Where a dump that is expected to fail writes. */
const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });

const work = await mkdtemp(join(tmpdir(), 'slipway-backup-tools-'));
t.teardown(() => rm(work, { recursive: true, force: true }));

async function dumpToFile(target: BackupTarget, name: string): Promise<string> {
  const path = join(work, `${name}.${BACKUP_FORMATS[target.engine].extension}`);
  const file = createWriteStream(path);
  try {
    await dumpDatabase(runtime, target, file, SIGNAL());
  } finally {
    file.end();
    await finished(file);
  }
  return path;
}

async function restoreFrom(target: BackupTarget, path: string) {
  const { size } = await stat(path);
  await restoreDatabase(runtime, target, createReadStream(path), size, SIGNAL());
}

/** The file cut short (to its first half unless told where), and a file of random bytes. */
async function damagedCopies(path: string, cutAt?: (bytes: Buffer) => number) {
  const bytes = await readFile(path);
  const truncated = `${path}.truncated`;
  const random = `${path}.random`;
  await writeFile(truncated, bytes.subarray(0, cutAt ? cutAt(bytes) : Math.floor(bytes.length / 2)));
  // Large enough that a tool refusing it at once leaves most of it unsent: its message must still come back.
  await writeFile(random, randomBytes(Math.max(bytes.length, 4 << 20)));
  return { truncated, random };
}

/** The BackupToolError a call rejects with, checked to carry `message` and no password. */
async function toolFailure(t: Test, promise: Promise<unknown>, message: RegExp, passwords: string[]) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  t.type(error, BackupToolError, `rejects with BackupToolError (got ${String(error)})`);
  t.match(String((error as Error | null)?.message), message);
  for (const password of passwords) t.notOk(String((error as Error | null)?.message).includes(password), 'the message holds no password');
}

async function started(engine: Exclude<Engine, 'mongodb'>, env: Record<string, string>, password: string, open: (e: EngineEndpoint) => DatabaseBrowser, args: string[] = []) {
  const server = await startEngineContainer(
    engine,
    async (endpoint) => {
      const probe = open(endpoint);
      try {
        await probe.ping();
      } finally {
        await probe.close();
      }
    },
    { password, contract: { env, ...(args.length > 0 ? { args } : {}) } },
  );
  return server;
}

function browserOf(t: Test, server: EngineContainer, open: (e: EngineEndpoint) => DatabaseBrowser) {
  const browser = open(server.endpoint);
  t.teardown(() => browser.close());
  return { query: (text: string) => browser.query(text, LIMITS).then((r) => r.rows) };
}

/** The loopback port the server is published on now: a restarted container gets another one. */
async function publishedPort(container: string, internal: string) {
  const info = await docker.getContainer(container).inspect();
  return Number(info.NetworkSettings.Ports[internal]?.[0]?.HostPort);
}

const skip = (await requireDocker()) || (await requireDbImages());

t.test('postgres: pg_dump -Fc and pg_restore --clean inside the container', { skip }, async (t) => {
  const password = 'pg-Secret-' + randomBytes(6).toString('hex');
  const env = { POSTGRES_USER: 'app', POSTGRES_PASSWORD: password, POSTGRES_DB: 'appdb' };
  const open = (e: EngineEndpoint) => createPostgresBrowser(e, 'postgres');
  const server = await started('postgres', env, password, open);
  t.teardown(() => server.stop());
  const db = browserOf(t, server, open);
  const target: BackupTarget = { container: server.name, engine: 'postgres', env };
  await db.query(
    `create table orders (id serial primary key, customer text not null, total numeric(10,2), placed timestamptz, raw bytea, tags text[]);
     insert into orders (customer, total, placed, raw, tags) values
       ('Ada ''quoted'' 中文 😀', 1.50, '2024-01-02 03:04:05+00', '\\x000aff'::bytea, '{a,b}'),
       (E'tab\\there\\nnewline', null, null, null, null);
     create view big_orders as select id, customer from orders where total > 1;`,
  );
  const contents = () => db.query('select *, (select count(*) from big_orders) as in_view from orders order by id');
  const before = await contents();

  const path = await dumpToFile(target, 'postgres');
  t.ok((await stat(path)).size > 0, 'the dump is not empty');
  t.equal((await readFile(path)).subarray(0, 5).toString(), 'PGDMP', 'a custom-format archive');

  await db.query('drop view big_orders; drop table orders; create table orders (id int)');
  await restoreFrom(target, path);
  t.same(await contents(), before, 'the rows and the view are back exactly');
  t.same(await db.query("select nextval('orders_id_seq') as next"), [{ next: 3 }], 'the sequence is where it was');

  await toolFailure(t, dumpDatabase(runtime, { ...target, env: { ...env, POSTGRES_DB: 'nowhere', POSTGRES_PASSWORD: 'wrong-Secret-1' } }, discard(), SIGNAL()), /pg_dump failed.*database "nowhere" does not exist/s, [password, 'wrong-Secret-1']);

  // Cut in its last data, so pg_restore has already dropped and recreated objects when it fails.
  const damaged = await damagedCopies(path, (bytes) => bytes.length - 30);
  const now = await contents();
  await toolFailure(t, restoreFrom(target, damaged.truncated), /pg_restore failed.*(end of file|could not read)/s, [password]);
  await toolFailure(t, restoreFrom(target, damaged.random), /pg_restore failed.*not appear to be a valid archive/s, [password]);
  t.same(await contents(), now, 'a damaged dump changes nothing (one transaction), and the database answers');
});

t.test('mysql: mysqldump --single-transaction and mysql inside the container', { skip }, async (t) => {
  const password = 'my-Secret-' + randomBytes(6).toString('hex');
  const env = { MYSQL_ROOT_PASSWORD: `${password}-root`, MYSQL_DATABASE: 'appdb', MYSQL_USER: 'app', MYSQL_PASSWORD: password };
  const server = await started('mysql', env, password, createMysqlBrowser);
  t.teardown(() => server.stop());
  const db = browserOf(t, server, createMysqlBrowser);
  const target: BackupTarget = { container: server.name, engine: 'mysql', env };
  await db.query(
    `create table orders (id int auto_increment primary key, customer varchar(200) character set utf8mb4 not null, total decimal(10,2), placed datetime, raw blob, big bigint);
     create table audit (order_id int, note text);
     create trigger orders_audit after insert on orders for each row insert into audit values (new.id, 'created');
     insert into orders (customer, total, placed, raw, big) values ('Ada ''quoted'' 中文 😀', 1.50, '2024-01-02 03:04:05', x'000aff0d', 9007199254740993), ('tab\\there', null, null, null, null);`,
  );
  const contents = async () => ({
    orders: await db.query('select * from orders order by id'),
    audit: await db.query('select * from audit order by order_id'),
    triggers: await db.query("select trigger_name from information_schema.triggers where trigger_schema = 'appdb'"),
  });
  const before = await contents();
  t.equal(before.audit.length, 2, 'the trigger ran');

  const path = await dumpToFile(target, 'mysql');
  t.ok((await stat(path)).size > 0, 'the dump is not empty');
  t.match((await readFile(path, 'utf8')).slice(-100), /-- Dump completed/);

  await db.query('drop table orders');
  await db.query('insert into audit values (99, "added after the dump")');
  await restoreFrom(target, path);
  t.same(await contents(), before, 'rows, binary values, emoji and the trigger are back exactly');

  await toolFailure(t, dumpDatabase(runtime, { ...target, env: { ...env, MYSQL_ROOT_PASSWORD: 'wrong-Secret-2' } }, discard(), SIGNAL()), /mysqldump failed.*Access denied/s, [password, 'wrong-Secret-2']);

  const damaged = await damagedCopies(path);
  await toolFailure(t, restoreFrom(target, damaged.truncated), /mysql failed.*incomplete/s, [password]);
  await toolFailure(t, restoreFrom(target, damaged.random), /mysql failed.*incomplete/s, [password]);
  const broken = join(work, 'broken.sql');
  await writeFile(broken, 'this is not sql;\n-- Dump completed on 2024-01-01\n');
  await toolFailure(t, restoreFrom(target, broken), /mysql failed.*SQL syntax/s, [password]);
  t.same(await contents(), before, 'a damaged dump changes nothing, and the database answers');
});

t.test('redis: an RDB snapshot, restored under append-only persistence', { skip }, async (t) => {
  const password = 'redis-Secret-' + randomBytes(6).toString('hex');
  const env = { REDIS_PASSWORD: password };
  // As Slipway runs it (engine-plans.ts): the password as an argument, append-only persistence.
  const server = await started('redis', {}, password, createRedisBrowser, ['redis-server', '--requirepass', password, '--appendonly', 'yes']);
  t.teardown(() => server.stop());
  const db = browserOf(t, server, createRedisBrowser);
  const target: BackupTarget = { container: server.name, engine: 'redis', env };
  const raw = async (n: number) => {
    const client = new Redis({ host: server.endpoint.host, port: await publishedPort(server.name, '6379/tcp'), password, db: n, lazyConnect: true, maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    return client;
  };
  /** Every key of databases 0 and 3 with its type and value (serialized by DUMP), and whether it expires. */
  async function contents() {
    const out: unknown[] = [];
    for (const n of [0, 3]) {
      const client = await raw(n);
      try {
        const keys = (await client.keys('*')).sort();
        for (const key of keys) {
          const type = await client.type(key);
          // A set's members come out in hash order, which is seeded anew at every start of the server.
          const value = type === 'set' ? (await client.smembers(key)).sort() : (await client.dumpBuffer(key))?.toString('hex');
          out.push([n, key, type, value, (await client.pttl(key)) > 0]);
        }
      } finally {
        client.disconnect();
      }
    }
    return out;
  }
  for (const line of ['SET plain "no colon"', 'HSET user:1 name Ada role admin', 'RPUSH queue:jobs a b c', 'SADD tags x y', 'ZADD board 1 one 2 two', 'XADD events 1-1 kind created', 'SET session:abc token EX 1000', 'SET "quoted key" "with \\"quotes\\" and \\x00 nul"']) await db.query(line);
  const three = await raw(3);
  await three.set('other:1', Buffer.from([0, 1, 2, 255]));
  // Enough to come out of the exec in many chunks, so the transfer's end mark is cut across them.
  for (let i = 0; i < 300; i++) await three.set(`bulk:${i}`, randomBytes(4096));
  three.disconnect();
  const before = await contents();
  t.equal(before.length, 309);

  const path = await dumpToFile(target, 'redis');
  t.ok((await stat(path)).size > 0, 'the dump is not empty');
  const bytes = await readFile(path);
  t.equal(bytes.subarray(0, 5).toString(), 'REDIS', 'an RDB file');
  t.equal(bytes[bytes.length - 9], 0xff, 'it ends with the RDB end opcode and its checksum: no transfer mark after it');

  await db.query('FLUSHALL');
  await db.query('SET intruder "written after the dump"');
  await restoreFrom(target, path);
  t.same(await contents(), before, 'every key is back exactly, and what was written since is gone');

  await docker.getContainer(server.name).restart({ t: 10 });
  await waitForRedis(raw);
  t.same(await contents(), before, 'after another restart too: the append-only file starts from the restored data');
  const left = await docker_.exec(server.name, { cmd: ['sh', '-c', 'ls -A /data | grep slipway'] }, SIGNAL());
  t.equal(left.exitCode, 1, 'no staging file or previous data is left in /data');

  // As Slipway keeps a database running: the engine restarts the server itself once it is shut down.
  await docker_.keepRunning(server.name);
  const zero = await raw(0);
  await zero.set('intruder', 'written after the dump');
  zero.disconnect();
  await restoreFrom(target, path);
  t.same(await contents(), before, 'restored again, with the engine restarting the container');

  await toolFailure(t, dumpDatabase(runtime, { ...target, env: { REDIS_PASSWORD: 'wrong-Secret-3' } }, discard(), SIGNAL()), /redis-cli --rdb failed.*WRONGPASS/s, [password, 'wrong-Secret-3']);
  await toolFailure(t, restoreFrom({ ...target, env: { REDIS_PASSWORD: 'wrong-Secret-3' } }, path), /refused.*NOAUTH/s, [password, 'wrong-Secret-3']);

  const runId = async () => {
    const client = await raw(0);
    try {
      return /run_id:(\w+)/.exec(await client.info('server'))?.[1];
    } finally {
      client.disconnect();
    }
  };
  const run = await runId();
  const damaged = await damagedCopies(path);
  await toolFailure(t, restoreFrom(target, damaged.truncated), /not a valid RDB snapshot.*Unexpected EOF/s, [password]);
  await toolFailure(t, restoreFrom(target, damaged.random), /not a valid RDB snapshot.*Wrong signature/s, [password]);
  t.equal(await runId(), run, 'the server was not restarted');
  t.same(await contents(), before, 'a damaged snapshot changes nothing, and the database answers');
});

async function waitForRedis(raw: (n: number) => Promise<Redis>) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const client = await raw(0);
    try {
      if ((await client.ping()) === 'PONG') return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      client.disconnect();
    }
  }
  throw new Error('redis did not answer after the restart');
}

t.test('columnar (ClickHouse): a tar of SHOW CREATE TABLE and FORMAT Native per table', { skip }, async (t) => {
  const password = 'ch-Secret-' + randomBytes(6).toString('hex');
  const env = { CLICKHOUSE_USER: 'app', CLICKHOUSE_PASSWORD: password, CLICKHOUSE_DB: 'appdb' };
  const server = await started('columnar', env, password, createClickhouseBrowser);
  t.teardown(() => server.stop());
  const db = browserOf(t, server, createClickhouseBrowser);
  const target: BackupTarget = { container: server.name, engine: 'columnar', env };
  await db.query('create table events (id UInt64, name String, score Nullable(Float64), tags Array(String), day Date) engine = MergeTree order by id');
  await db.query("insert into events values (1, 'Ada ''quoted'' 中文 😀', 1.5, ['a','b'], '2024-01-02'), (2, 'tab\\there\\nnewline', null, [], '2024-02-03'), (18446744073709551615, '', -0.25, ['x'], '1970-01-02')");
  await db.query('create table "odd ""name"" log" (k String) engine = Log');
  await db.query("insert into \"odd \"\"name\"\" log\" values ('one'), ('two')");
  await db.query('create view named as select id, name from events where score is not null');
  const contents = async () => ({
    events: await db.query('select * from events order by id'),
    log: await db.query('select * from "odd ""name"" log" order by k'),
    view: await db.query('select * from named order by id'),
  });
  const before = await contents();
  t.equal(before.view.length, 2);

  const path = await dumpToFile(target, 'columnar');
  t.ok((await stat(path)).size > 0, 'the dump is not empty');

  await db.query('drop table named');
  await db.query('drop table events');
  await db.query("insert into \"odd \"\"name\"\" log\" values ('after the dump')");
  await restoreFrom(target, path);
  t.same(await contents(), before, 'both tables and the view are back exactly');

  await toolFailure(t, dumpDatabase(runtime, { ...target, env: { ...env, CLICKHOUSE_PASSWORD: 'wrong-Secret-4' } }, discard(), SIGNAL()), /ClickHouse dump failed.*Wrong password/s, [password, 'wrong-Secret-4']);

  // A tar is padded with zeros: cut where its last entry (the closing one) starts, and halfway through its first data.
  const closing = (bytes: Buffer) => bytes.indexOf(Buffer.from('complete\0'));
  const atEntry = await damagedCopies(path, closing);
  await toolFailure(t, restoreFrom(target, atEntry.truncated), /ClickHouse restore failed.*incomplete/s, [password]);
  const damaged = await damagedCopies(path, (bytes) => bytes.indexOf(Buffer.from('1.native\0')) + 512 + 8);
  await toolFailure(t, restoreFrom(target, damaged.truncated), /ClickHouse restore failed.*damaged/s, [password]);
  await toolFailure(t, restoreFrom(target, damaged.random), /ClickHouse restore failed.*damaged/s, [password]);
  t.same(await contents(), before, 'a damaged archive changes nothing, and the database answers');
});

t.test('no password was ever on a command line', { skip }, async (t) => {
  t.ok(argvSeen.length > 0);
  const leaked = argvSeen.filter((argv) => argv.some((arg) => /Secret-/.test(arg)));
  t.same(leaked, [], 'no argv holds a password');
});
