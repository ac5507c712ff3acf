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
  const reply = await ask(`${question} [y/N] `);
  if (reply === null || !/^y(es)?$/i.test(reply.trim())) throw new Declined('nothing was changed');
}

/** Asks on the terminal (or reads the answer from stdin); null when Ctrl-C came instead. */
export function ask(question: string): Promise<string | null> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: Boolean(process.stdin.isTTY) });
    let answered = false;
    rl.question(question, (reply) => {
      answered = true;
      rl.close();
      resolve(reply);
    });
    rl.once('SIGINT', () => rl.close());
    rl.once('close', () => answered || resolve(null));
  });
}

/** The user said no: exit 1, nothing sent. */
export class Declined extends Error {}
