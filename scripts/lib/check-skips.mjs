// Under the test command every test must run: the only skips allowed are those whose server cannot be
// installed on this machine and whose URL was not given. Reads the TAP output tap keeps per test file.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const allowed = [];
if (!process.env.EVENTSTORE_URL) allowed.push(/EVENTSTORE_URL is not set/);
if (!process.env.MONGODB_TEST_URL) allowed.push(/MONGODB_TEST_URL is not set/);

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));

const unexpected = [];
for (const file of files(process.argv[2])) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/# (SKIP|TODO)\b/.test(line) && !allowed.some((re) => re.test(line))) unexpected.push(`${file}: ${line.trim()}`);
  }
}
if (unexpected.length > 0) {
  console.error(`\n${unexpected.length} test(s) skipped that must run under the test command:\n${unexpected.join('\n')}`);
  process.exit(1);
}
