import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { ON_PGLITE, startTestServer } from '../helpers/test-server.js';

/** Every entry under `dir` whose mode lets group or others in, with its mode. */
function readableByOthers(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if (stat.mode & 0o077) found.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return found;
}

t.test('a new data directory is 0700 and everything in it 0600/0700, the database included', async (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'slipway-perm-')), 'data');
  const s = await startTestServer(ON_PGLITE, dir);
  t.teardown(() => s.close());
  t.equal((await s.call('POST', '/api/projects', { body: { name: 'Private', description: '' } })).status, 200);
  t.equal(lstatSync(dir).mode & 0o777, 0o700, 'the directory');
  t.ok(readdirSync(join(dir, 'pgdata')).length > 0, 'PGlite wrote its files');
  t.same(readableByOthers(dir), [], 'nothing in it is open to other users');
});

t.test('an existing directory open to others is tightened at start, with a log line', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-perm-wide-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'backups'), { mode: 0o755 });
  writeFileSync(join(dir, 'backups', 'old.dump'), 'x', { mode: 0o644 });
  chmodSync(join(dir, 'backups', 'old.dump'), 0o644);
  const s = await startTestServer({ ...ON_PGLITE, SLIPWAY_LOG: 'json' }, dir);
  t.teardown(() => s.close());
  t.same(readableByOthers(dir), [], 'directory and files tightened');
  t.match(s.logs(), /readable by other users: tightened/, 'the operator is told');
});

t.test('wide files behind a private directory (a first start cut short in initdb) are tightened without a warning', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-perm-cut-'));
  chmodSync(dir, 0o700);
  mkdirSync(join(dir, 'pgdata-partial'), { mode: 0o700 });
  writeFileSync(join(dir, 'pgdata-partial', 'PG_VERSION'), '17', { mode: 0o666 });
  chmodSync(join(dir, 'pgdata-partial', 'PG_VERSION'), 0o666);
  const s = await startTestServer({ ...ON_PGLITE, SLIPWAY_LOG: 'json' }, dir);
  t.teardown(() => s.close());
  t.same(readableByOthers(dir), [], 'tightened all the same');
  t.notMatch(s.logs(), /readable by other users/, 'no one could read them: no warning');
});

t.test('files the store creates after a restart and a checkpoint are 0600 (pg_internal.init, stats, WAL)', async (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'slipway-perm-used-')), 'data');
  const first = await startTestServer(ON_PGLITE, dir);
  t.equal((await first.call('POST', '/api/projects', { body: { name: 'Before', description: '' } })).status, 200);
  await first.stopKeepingData();
  const again = await startTestServer(ON_PGLITE, dir);
  t.teardown(() => again.close());
  t.equal((await again.call('POST', '/api/projects', { body: { name: 'After', description: '' } })).status, 200);
  await again.app.db.query('CHECKPOINT');
  t.same(readdirSync(join(dir, 'pgdata', 'global')).filter((name) => name === 'pg_internal.init'), ['pg_internal.init'], 'the relation cache file is there');
  t.same(readableByOthers(dir), [], 'nothing in it is open to other users');
});

t.test('a library reading the umask does not open files another thread creates meanwhile', async (t) => {
  // PGlite writes from its own thread, and asks for 0644 where Postgres uses fopen (pg_internal.init, the stats
  // file): only the process umask makes those 0600. Node's process.umask() without an argument sets the umask
  // to 0 and back (tar-fs does it at every Docker build): a file created in between kept 0644.
  const dir = join(mkdtempSync(join(tmpdir(), 'slipway-perm-race-')), 'data');
  const s = await startTestServer(ON_PGLITE, dir);
  t.teardown(() => s.close());
  const files = join(dir, 'race');
  mkdirSync(files);
  const writer = new Worker(
    `const { writeFileSync } = require('node:fs');
     const { workerData } = require('node:worker_threads');
     for (let i = 0; i < 5000; i++) writeFileSync(workerData + '/f' + i, '', { mode: 0o644 });`,
    { eval: true, workerData: files },
  );
  let finished = false;
  const exited = new Promise((resolve) => writer.once('exit', resolve)).then(() => (finished = true));
  while (!finished) {
    for (let i = 0; i < 10_000; i++) process.umask();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await exited;
  t.equal(readdirSync(files).length, 5000, 'the thread wrote its files');
  t.same(readableByOthers(files), [], 'every one of them is 0600');
  t.equal(process.umask(), 0o077, 'the umask is still 077');
});
