// Restates every failed assertion at the end of the run, with its test path and tap's diagnostics, so
// that the tail of a CI log names what failed. Reads the TAP output tap keeps per test file, then what the
// test helpers reported of files that failed by their exit alone (.tap/exits: a handle left open, a stuck close).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));

const indentOf = (line) => line.match(/^ */)[0].length;
const failures = [];
for (const file of files(process.argv[2])) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const path = [];
  lines.forEach((line, i) => {
    const depth = indentOf(line) / 4;
    const subtest = line.match(/^\s*# Subtest: (.*)$/);
    if (subtest) path.splice(depth, Infinity, subtest[1]);
    // A failed subtest also reports "not ok" for itself; only its leaf assertions are worth restating.
    if (!/^\s*not ok /.test(line) || / # time=[\d.]+m?s$/.test(line) || !/^\s*---\s*$/.test(lines[i + 1] ?? '')) return;
    const diagnostics = [];
    let keyIndent = -1;
    let inSource = false;
    for (let j = i + 2; j < lines.length && !/^\s*\.\.\.\s*$/.test(lines[j]); j++) {
      const key = lines[j].match(/^(\s*)(\w+):/);
      if (key && (keyIndent < 0 || key[1].length <= keyIndent)) {
        keyIndent = key[1].length;
        // The source excerpt repeats what the stack already locates.
        inSource = key[2] === 'source' || key[2] === 'at';
      }
      if (!inSource) diagnostics.push(lines[j]);
    }
    failures.push(`${file}\n  ${path.slice(0, depth).join(' > ')}\n  ${line.trim()}\n${diagnostics.slice(0, 20).join('\n')}`);
  });
}
const exits = process.argv[3] && existsSync(process.argv[3]) ? files(process.argv[3]) : [];
for (const file of exits) failures.push(`${file}\n${readFileSync(file, 'utf8').trim()}`);
if (failures.length) console.log(`\nFailed assertions (${failures.length}):\n\n${failures.join('\n\n')}\n`);
