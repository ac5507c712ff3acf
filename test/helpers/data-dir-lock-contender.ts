import { createInterface } from 'node:readline';
import { lockDataDir } from '../../src/db/data-dir-lock.js';

/**
 * One process contending for data directories, driven over stdin: `try <dir> <at ms>` takes the lock at
 * that wall-clock time (so every contender tries at once) and answers `won` or `lost`; `release` lets go.
 */
let release: (() => void) | null = null;
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [command, dir, at] = line.split(' ');
  if (command === 'release') {
    release?.();
    release = null;
    process.stdout.write('released\n');
    return;
  }
  setTimeout(() => {
    while (Date.now() < Number(at)) {
      // the last milliseconds spin, so the contenders try within microseconds of each other
    }
    try {
      release = lockDataDir(dir!);
      process.stdout.write('won\n');
    } catch (error) {
      process.stdout.write(`lost ${(error as Error).message}\n`);
    }
  }, Math.max(0, Number(at) - Date.now() - 5));
});
process.stdout.write('ready\n');
