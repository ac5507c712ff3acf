import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { checkedOutCommit, runGit } from '../build/git-source.js';

export interface PushedCheckoutRequest {
  /** The service's bare repository in the data directory. */
  repository: string;
  commit: string;
  dir: string;
  signal: AbortSignal;
  onLine: (line: string) => void;
}

/**
 * Where a pushed commit's objects are: the repository's own, and those of pushes still in their pre-receive
 * step (git keeps them in `objects/tmp_objdir-incoming-*` until the hook accepts them). Objects are named by
 * their content, so reading another push's quarantine of the same repository cannot change what is built.
 */
function objectDirectories(repository: string): string[] {
  const objects = join(repository, 'objects');
  if (!existsSync(objects)) return [];
  const quarantines = readdirSync(objects).filter((name) => name.startsWith('tmp_objdir-incoming-'));
  return [objects, ...quarantines.map((name) => join(objects, name))];
}

/**
 * A checkout of one commit pushed to Slipway, read from the local repository (never cloned over a transport,
 * so `cloneBranch`'s http(s)-only rule stays whole); returns the commit and the first line of its message.
 */
export async function checkoutPushed(request: PushedCheckoutRequest): Promise<{ sha: string; message: string }> {
  const directories = objectDirectories(request.repository);
  if (directories.length === 0) throw new Error('nothing was pushed to this service yet');
  const env = { GIT_ALTERNATE_OBJECT_DIRECTORIES: directories.join(':') };
  const quiet = () => undefined;
  await runGit(['init', '--quiet', basename(request.dir)], {}, request.signal, quiet, dirname(request.dir));
  await runGit(['cat-file', '-e', `${request.commit}^{commit}`], env, request.signal, quiet, request.dir).catch(() => {
    throw new Error(`commit ${request.commit} is not in the pushed repository (the push that brought it has ended)`);
  });
  await runGit(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', request.commit], env, request.signal, request.onLine, request.dir);
  return checkedOutCommit(env, request.signal, request.onLine, request.dir);
}
