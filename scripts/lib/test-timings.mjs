// The slowest test files of the last run, from the TAP output tap keeps per file (`# time=` is each file's own
// wall time). `npm run test:timings [N]`; the total is what the files took one after another.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = '.tap/test-results';
if (!existsSync(root)) {
  console.error('no test results yet: run `npm test` (or `npm test -- <files>`) first');
  process.exit(1);
}
const files = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
const timed = files(root)
  .map((file) => {
    const times = [...readFileSync(file, 'utf8').matchAll(/^# time=([\d.]+)ms$/gm)];
    return { file: relative(root, file).replace(/\.tap$/, ''), ms: times.length > 0 ? Number(times.at(-1)[1]) : 0 };
  })
  .sort((a, b) => b.ms - a.ms);
const count = Number(process.argv[2] ?? 10);
const width = Math.max(...timed.slice(0, count).map((t) => t.file.length));
for (const { file, ms } of timed.slice(0, count)) console.log(`${file.padEnd(width)}  ${(ms / 1000).toFixed(1).padStart(6)} s`);
const total = timed.reduce((sum, t) => sum + t.ms, 0);
console.log(`${timed.length} files, ${(total / 60_000).toFixed(1)} min one after another`);
