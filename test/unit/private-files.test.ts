import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import t, { type Test } from 'tap';
import { createPrivateFile, openPrivateFile, privateDirectory, writePrivateFile } from '../../src/private-files.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

function place(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-private-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'as it was\n');
  return { dir, victim };
}

t.test('directories: 0700, tightened when wider, never a link', async (t) => {
  const { dir } = place(t);
  privateDirectory(join(dir, 'a', 'b'));
  t.equal(modeOf(join(dir, 'a', 'b')), 0o700, 'created 0700');
  t.equal(modeOf(join(dir, 'a')), 0o700, 'with its missing parents');
  mkdirSync(join(dir, 'wide'));
  chmodSync(join(dir, 'wide'), 0o755);
  privateDirectory(join(dir, 'wide'));
  t.equal(modeOf(join(dir, 'wide')), 0o700, 'an existing wider one is tightened');
  const elsewhere = join(dir, 'elsewhere');
  mkdirSync(elsewhere);
  chmodSync(elsewhere, 0o755);
  symlinkSync(elsewhere, join(dir, 'linked'));
  t.throws(() => privateDirectory(join(dir, 'linked')), /linked is not a directory/, 'a link in its place is refused');
  t.equal(modeOf(elsewhere), 0o755, 'and what it points at is left alone');
});

t.test('files are created 0600 and exclusively: never through a link or over a file', async (t) => {
  const { dir, victim } = place(t);
  writePrivateFile(join(dir, 'credentials'), 'token\n');
  t.equal(modeOf(join(dir, 'credentials')), 0o600);
  t.equal(readFileSync(join(dir, 'credentials'), 'utf8'), 'token\n');
  symlinkSync(victim, join(dir, 'planted'));
  symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
  t.throws(() => writePrivateFile(join(dir, 'planted'), 'attacker\n'), { code: 'EEXIST' }, 'a link in its place');
  t.throws(() => writePrivateFile(join(dir, 'dangling'), 'attacker\n'), { code: 'EEXIST' }, 'a dangling link in its place');
  t.throws(() => writePrivateFile(join(dir, 'credentials'), 'again\n'), { code: 'EEXIST' }, 'a file already there');
  t.notOk(existsSync(join(dir, 'nowhere')), 'nothing was created where the dangling link points');

  const stream = createPrivateFile(join(dir, 'backup.partial'));
  stream.end('dump');
  await finished(stream);
  t.equal(modeOf(join(dir, 'backup.partial')), 0o600, 'a stream creates 0600 too');
  const through = createPrivateFile(join(dir, 'planted'));
  await t.rejects(finished(through), { code: 'EEXIST' }, 'a stream refuses a link in its place');
  t.equal(readFileSync(victim, 'utf8'), 'as it was\n', 'the link target is unchanged');
});

t.test('files are opened without following a link, and only regular files', async (t) => {
  const { dir, victim } = place(t);
  const opened = await openPrivateFile(victim);
  t.equal(opened?.size, 'as it was\n'.length);
  await opened?.handle.close();
  t.equal(await openPrivateFile(join(dir, 'missing')), null, 'nothing there is null');
  symlinkSync(victim, join(dir, 'link'));
  await t.rejects(openPrivateFile(join(dir, 'link')), { code: 'ELOOP' }, 'a link is not followed');
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  await t.rejects(openPrivateFile(join(dir, 'fifo')), /fifo is not a regular file/, 'a fifo is refused without waiting for a writer');
});
