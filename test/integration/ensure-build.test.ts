import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import t from 'tap';

const ROOT = resolve(import.meta.dirname, '../..');

// A small project with the checkout's compiler settings, in a directory of its own: the builds here neither
// race nor disturb other tests' dist, and take seconds.
const dir = mkdtempSync(join(tmpdir(), 'slipway-ensure-build-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json']) cpSync(join(ROOT, file), join(dir, file));
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
};
write('src/cli/main.ts', "import { greeting } from '../../commands/greeting.js';\nconsole.log(greeting);\n");
write('commands/greeting.ts', "export const greeting: string = 'hello';\n");
write('projections/empty.ts', 'export {};\n');
symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));

const ensureBuild = () => execFileSync('bash', ['-c', `source ${JSON.stringify(join(ROOT, 'scripts/lib/build.sh'))} && ensure_build out`], { cwd: dir, encoding: 'utf8' });
const main = join(dir, 'out/src/cli/main.js');

t.test('ensure_build builds once, then only after a source changed', async (t) => {
  t.match(ensureBuild(), /^building Slipway into out/, 'no build yet: builds');
  t.ok(existsSync(main), 'the CLI was compiled');
  t.ok(statSync(main).mode & 0o100, 'and is executable');
  const built = statSync(main).mtimeMs;

  t.match(ensureBuild(), /^build up to date \(out\)/, 'nothing changed: no build');
  t.equal(statSync(main).mtimeMs, built, 'the output was not rewritten');

  appendFileSync(join(dir, 'commands/greeting.ts'), '// edited\n');
  t.match(ensureBuild(), /^building Slipway into out/, 'an edited source file: builds again');
  t.match(ensureBuild(), /^build up to date/);

  rmSync(join(dir, 'out/src/cli/main.js'));
  t.match(ensureBuild(), /^building Slipway into out/, 'output missing: builds again');
  t.equal(execFileSync('node', [main], { encoding: 'utf8' }), 'hello\n', 'the build runs');
});
