import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/**
 * The commit a fresh clone checked out, read from the files git itself wrote in `.git` (a repository cannot
 * plant them: git refuses `.git` paths in a tree), which spares starting `git rev-parse`. Null for anything
 * but the plain cases (HEAD on a branch, loose or packed, or detached on a tag): the caller asks git then.
 */
export function clonedHead(workTree: string): string | null {
  const gitDir = join(workTree, '.git');
  const head = read(join(gitDir, 'HEAD'))?.trim();
  if (!head) return null;
  if (SHA.test(head)) return head;
  const ref = /^ref: (refs\/heads\/[^\s]+)$/.exec(head)?.[1];
  if (!ref || ref.split('/').some((part) => part === '..' || part === '.' || part === '')) return null;
  const loose = read(join(gitDir, ref))?.trim();
  if (loose !== undefined && loose !== null) return SHA.test(loose) ? loose : null;
  for (const line of (read(join(gitDir, 'packed-refs')) ?? '').split('\n')) {
    const [sha, name] = line.trim().split(' ');
    if (name === ref && sha && SHA.test(sha)) return sha;
  }
  return null;
}
