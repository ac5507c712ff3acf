import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer } from '../helpers/test-server.js';

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
  const s = await startTestServer({}, dir);
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
  const s = await startTestServer({ SLIPWAY_LOG: 'json' }, dir);
  t.teardown(() => s.close());
  t.same(readableByOthers(dir), [], 'directory and files tightened');
  t.match(s.logs(), /readable by other users: tightened/, 'the operator is told');
});
