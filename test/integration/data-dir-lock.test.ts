import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { root } from '../helpers/cli-process.js';

const CONTENDERS = 10;
const ROUNDS = 25;

interface Contender {
  child: ChildProcess;
  next(): Promise<string>;
  send(line: string): void;
}

function contender(): Contender {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/helpers/data-dir-lock-contender.ts')], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting: ((line: string) => void)[] = [];
  const queued: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else queued.push(line);
  });
  return {
    child,
    next: () => (queued.length > 0 ? Promise.resolve(queued.shift()!) : new Promise((resolve) => waiting.push(resolve))),
    send: (line) => child.stdin!.write(line + '\n'),
  };
}

/** What a process killed with SIGKILL leaves behind: a lock naming a pid that no longer runs. */
function deadPid(): number {
  return spawnSync('true').pid!;
}

t.test('many processes start on one data directory at once: exactly one holds it, every time', async (t) => {
  const contenders = Array.from({ length: CONTENDERS }, contender);
  t.teardown(() => contenders.forEach((c) => c.child.kill('SIGKILL')));
  for (const c of contenders) t.equal(await c.next(), 'ready');

  const base = mkdtempSync(join(tmpdir(), 'slipway-lock-race-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  const winners: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dir = join(base, String(round));
    if (round % 2 === 0) {
      spawnSync('mkdir', ['-p', dir]);
      writeFileSync(join(dir, 'slipway.lock'), String(deadPid()));
    }
    const at = Date.now() + 300;
    for (const c of contenders) c.send(`try ${dir} ${at}`);
    const answers = await Promise.all(contenders.map((c) => c.next()));
    const won = answers.filter((a) => a === 'won').length;
    winners.push(won);
    for (const a of answers.filter((a) => a !== 'won')) t.match(a, /^lost data directory is in use by process/, 'a loser is refused');
    for (const c of contenders.filter((_, i) => answers[i] === 'won')) {
      c.send('release');
      await c.next();
    }
  }
  t.same(winners, Array(ROUNDS).fill(1), 'one winner in every round');
});

t.test('the lock goes with its process, however it ends', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-lock-kill-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [first, second] = [contender(), contender()];
  t.teardown(() => [first, second].forEach((c) => c.child.kill('SIGKILL')));
  await Promise.all([first.next(), second.next()]);

  first.send(`try ${dir} 0`);
  t.equal(await first.next(), 'won');
  second.send(`try ${dir} 0`);
  t.match(await second.next(), `lost data directory is in use by process ${first.child.pid}`);

  await new Promise((resolve) => first.child.once('exit', resolve).kill('SIGKILL'));
  second.send(`try ${dir} 0`);
  t.equal(await second.next(), 'won', 'a crashed holder leaves nothing to take over');
});
