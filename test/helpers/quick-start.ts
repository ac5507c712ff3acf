import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The commands of the README's quick start, in order: the lines of the shell block between
 * `<!-- quick-start -->` and `<!-- /quick-start -->`, without their trailing comments.
 */
export function quickStartCommands(root: string): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = /<!-- quick-start -->([\s\S]*?)<!-- \/quick-start -->/.exec(readme)?.[1];
  if (!section) throw new Error('README.md has no <!-- quick-start --> section');
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('the quick start has no ```sh block');
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
