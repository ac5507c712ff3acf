import { createInterface } from 'node:readline';
import { UsageError } from './usage-error.js';

/**
 * Asks before a command destroys something. On a terminal the question is asked (anything but y/yes
 * declines); `--yes` skips it; without a terminal and without `--yes` the command is refused before it
 * sends anything, so a script never deletes by accident.
 */
export async function confirm(question: string, o: { yes?: boolean }): Promise<void> {
  if (o.yes) return;
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new UsageError(`refusing without a terminal to ask: ${question.replace(/\?$/, '')}. Pass --yes to do it`);
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const reply = await new Promise<string | null>((resolve) => {
    let answered = false;
    rl.question(`${question} [y/N] `, (r) => {
      answered = true;
      resolve(r);
      rl.close();
    });
    rl.once('close', () => answered || resolve(null));
  });
  if (reply === null || !/^y(es)?$/i.test(reply.trim())) throw new Declined('nothing was changed');
}

/** The user said no: exit 1, nothing sent. */
export class Declined extends Error {}
