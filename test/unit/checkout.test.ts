import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { Checkout, CheckoutRefusal } from '../../src/build/checkout.js';

/**
 * A checkout beside a directory outside it that holds a secret, laid out as a hostile repository would:
 * links out (relative, absolute, through a chain, to a directory), special files, a hard link, and links that
 * stay inside and must keep working.
 */
function layout() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'slipway-checkout-')));
  const root = join(base, 'builds', 'd1', 'src');
  const outside = join(base, 'outside');
  const secret = `secret-${randomBytes(12).toString('hex')}`;
  mkdirSync(join(outside, 'sub'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), `web: echo ${secret}\n`);
  writeFileSync(join(outside, 'sub', 'Dockerfile'), `FROM ${secret}\n`);
  writeFileSync(join(base, 'master.key'), `${secret}\n`);
  const file = (path: string, content: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  const link = (path: string, target: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    symlinkSync(target, join(root, path));
  };
  file('README.md', 'readme\n');
  file('docker/app.Dockerfile', 'FROM inside\n');
  file('releases/v1/index.html', '<h1>v1</h1>\n');
  link('Dockerfile', 'docker/app.Dockerfile');
  link('docker/readme', '../README.md');
  link('current', 'releases/v1');
  link('via-current', 'current/index.html');
  link('abs-inside', join(root, 'docker', 'app.Dockerfile'));
  link('up', '../../../master.key');
  link('abs-out', join(outside, 'secret.txt'));
  link('chain-1', 'chain-2');
  link('chain-2', 'links/chain-3');
  link('links/chain-3', join(outside, 'secret.txt'));
  link('inside-chain', 'chain-inside-2');
  link('chain-inside-2', 'docker/readme');
  link('ext', outside);
  link('ext-relative', '../../../outside/sub');
  link('root-link', '/');
  link('environ', '/proc/self/environ');
  link('sneaky', 'releases/../../d1');
  link('loop-1', 'loop-2');
  link('loop-2', 'loop-1');
  link('abs-dotdot', `${root}/../../../master.key`);
  execFileSync('mkfifo', [join(root, 'pipe')]);
  linkSync(join(outside, 'secret.txt'), join(root, 'hard'));
  return { base, root, outside, secret, checkout: new Checkout(root) };
}

/** The refusal `fn` throws; fails the test if it returns. */
function refusal(t: Test, fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    t.type(error, CheckoutRefusal, 'a typed refusal');
    return (error as Error).message;
  }
  t.fail('was not refused');
  return '';
}

t.test('links that stay inside the checkout resolve', async (t) => {
  const { base, root, checkout } = layout();
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  t.equal(checkout.read('Dockerfile'), 'FROM inside\n', 'Dockerfile -> docker/app.Dockerfile');
  t.equal(checkout.resolve('Dockerfile')?.realPath, join(root, 'docker', 'app.Dockerfile'), 'to its real path inside');
  t.equal(checkout.read('docker/readme'), 'readme\n', 'a link climbing with .. but staying inside');
  t.equal(checkout.read('inside-chain'), 'readme\n', 'a chain of links ending inside');
  t.equal(checkout.read('abs-inside'), 'FROM inside\n', 'an absolute link into the checkout');
  t.equal(checkout.directory('current'), join(root, 'releases', 'v1'), 'a link to a directory inside, as its real directory');
  t.equal(checkout.read('current/index.html'), '<h1>v1</h1>\n', 'a file below a linked directory');
  t.equal(checkout.read('via-current'), '<h1>v1</h1>\n', 'a link through a linked directory');
  t.equal(checkout.read('./docker/../README.md'), 'readme\n', '.. that stays inside');
  t.equal(checkout.directory('.'), root, 'the root itself');
  t.equal(checkout.directory('releases'), join(root, 'releases'));
  t.equal(checkout.directory('README.md'), null, 'a file is not a directory');
  t.equal(checkout.isFile('releases'), false, 'a directory is not a file');
  t.equal(checkout.isFile('README.md'), true);
  const files = checkout.filesIn('current');
  t.ok(files.has('index.html'));
  t.notOk(files.has('missing.html'));
  t.equal(files.read('index.html'), '<h1>v1</h1>\n', 'the packbuilder view of a directory');
});

t.test('nothing there is null, not an error', async (t) => {
  const { base, checkout } = layout();
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  t.equal(checkout.resolve('missing'), null);
  t.equal(checkout.read('missing/deeper'), null);
  t.equal(checkout.read('README.md/below-a-file'), null, 'a file used as a directory');
  t.equal(checkout.isFile('docker/missing.Dockerfile'), false);
  t.equal(checkout.directory('nope'), null);
});

t.test('paths and links that leave the checkout are refused, naming the repository path', async (t) => {
  const { base, outside, secret, checkout } = layout();
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  const cases: [string, () => unknown, RegExp][] = [
    ['a relative link out', () => checkout.read('up'), /^up is a symbolic link that leaves the repository$/],
    ['an absolute link out', () => checkout.read('abs-out'), /^abs-out is a symbolic link that leaves the repository$/],
    ['an absolute link spelled under the checkout that climbs out', () => checkout.read('abs-dotdot'), /^abs-dotdot is a symbolic link that leaves the repository$/],
    ['a chain ending outside', () => checkout.read('chain-1'), /^chain-1 leads out of the repository through the symbolic link links\/chain-3$/],
    ['a link to a directory outside, as a directory', () => checkout.directory('ext'), /^ext is a symbolic link that leaves the repository$/],
    ['a file below a link to a directory outside', () => checkout.read('ext/secret.txt'), /^ext\/secret\.txt leads out of the repository through the symbolic link ext$/],
    ['a relative link to a directory outside', () => checkout.read('ext-relative/Dockerfile'), /^ext-relative\/Dockerfile leads out of the repository through the symbolic link ext-relative$/],
    ['a link to /', () => checkout.directory('root-link'), /^root-link is a symbolic link that leaves the repository$/],
    ['a link to /proc/self/environ', () => checkout.read('environ'), /^environ is a symbolic link that leaves the repository$/],
    ['a link that climbs out and back in', () => checkout.directory('sneaky'), /^sneaky is a symbolic link that leaves the repository$/],
    ['.. out of the root', () => checkout.read('../outside/secret.txt'), /^\.\.\/outside\/secret\.txt leaves the repository$/],
    ['.. out from below', () => checkout.read('docker/../../x'), /^docker\/\.\.\/\.\.\/x leaves the repository$/],
    ['an absolute path', () => checkout.read('/etc/passwd'), /^\/etc\/passwd is not a path inside the repository$/],
    ['a loop of links', () => checkout.read('loop-1'), /^loop-1 goes through too many symbolic links$/],
    ['a fifo', () => checkout.read('pipe'), /^pipe is a named pipe \(fifo\)$/],
    ['a fifo, only checked', () => checkout.isFile('pipe'), /^pipe is a named pipe \(fifo\)$/],
    ['a hard link to a file outside', () => checkout.read('hard'), /^hard has more than one hard link$/],
  ];
  for (const [what, fn, expected] of cases) {
    const message = refusal(t, fn);
    t.match(message, expected, what);
    t.notMatch(message, secret, `${what}: no content of the target`);
    t.notMatch(message, outside, `${what}: not the target's path`);
    t.notMatch(message, /master\.key|\/proc/, `${what}: not the target's name`);
  }
});

t.test('devices and oversized files are refused', async (t) => {
  const { base, root, checkout } = layout();
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  writeFileSync(join(root, 'big.json'), Buffer.alloc(1024 * 1024 + 1, 'a'));
  t.match(refusal(t, () => checkout.read('big.json')), /^big\.json is larger than 1024 KiB$/, 'over 1 MiB');
  writeFileSync(join(root, 'small.json'), '{}');
  t.match(refusal(t, () => checkout.read('small.json', 1)), /^small\.json is larger than 0 KiB$/, 'over a smaller cap');
  t.match(refusal(t, () => checkout.read('releases')), /^releases is a directory, not a file$/);
  const device = join(root, 'null-device');
  const made = (() => {
    try {
      execFileSync('mknod', [device, 'c', '1', '3'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  t.test('a character device', { skip: made ? false : 'mknod is not allowed here' }, async (t) => {
    t.match(refusal(t, () => checkout.read('null-device')), /^null-device is a device$/);
  });
});
