import { minimatch } from 'minimatch';
import type { AutoDeploySettings, SkipReason } from './events.js';

/** A push as every provider's payload says it, reduced to what deciding needs. */
export interface PushedRef {
  /** `refs/heads/<branch>` or `refs/tags/<tag>`. */
  ref: string;
  /** The pushed commit; null when the ref was deleted. */
  after: string | null;
  /** The pushed head commit's message, when the payload has it. */
  headMessage: string | null;
  /** Files the pushed commits added, changed or removed; null when the provider does not list them. */
  files: string[] | null;
}

export type PushVerdict = { deploy: true } | { skipped: SkipReason };

const GLOB = { dot: true, nocomment: true, nonegate: true } as const;
const matchesAny = (file: string, globs: readonly string[]) => globs.some((g) => minimatch(file, g, GLOB));

/**
 * Whether a push deploys: the branch (or a tag matching `tagPattern`), then the paths it touched (some watched
 * one, if any are watched; not only ignored ones), then the head commit's message (no skip keyword).
 */
export function decidePush(settings: AutoDeploySettings, serviceBranch: string, push: PushedRef): PushVerdict {
  if (!settings.enabled) return { skipped: 'disabled' };
  if (push.ref.startsWith('refs/tags/')) {
    const tag = push.ref.slice('refs/tags/'.length);
    if (settings.tagPattern === null || !minimatch(tag, settings.tagPattern, GLOB)) return { skipped: 'tag' };
  } else if (push.ref !== `refs/heads/${settings.branch ?? serviceBranch}`) return { skipped: 'branch' };
  if (push.after === null) return { skipped: 'branch' };
  if (push.files !== null && push.files.length > 0) {
    if (settings.watchPaths.length > 0 && !push.files.some((f) => matchesAny(f, settings.watchPaths))) return { skipped: 'paths' };
    if (settings.ignorePaths.length > 0 && push.files.every((f) => matchesAny(f, settings.ignorePaths))) return { skipped: 'paths' };
  }
  const message = (push.headMessage ?? '').toLowerCase();
  if (settings.skipKeywords.some((k) => k !== '' && message.includes(k.toLowerCase()))) return { skipped: 'keyword' };
  return { deploy: true };
}

const NO_COMMIT = '0'.repeat(40);

/** One ref a `git push` moves, as git's pre-receive hook reads it (the zero id: none). */
export interface GitRefUpdate {
  oldSha: string;
  newSha: string;
  ref: string;
}

export type GitPushVerdict = { deploy: string } | { skipped: 'branch' | 'deleted' } | { refused: string };

/**
 * Whether a `git push` deploys: it does when it moves the service's branch to a commit, from where the branch
 * points now (`branchTip`; git would refuse the update otherwise). Other refs are stored and deploy nothing;
 * a deleted branch deploys nothing.
 */
export function decideGitPush(updates: readonly GitRefUpdate[], serviceBranch: string, branchTip: string): GitPushVerdict {
  const update = updates.find((u) => u.ref === `refs/heads/${serviceBranch}`);
  if (!update) return { skipped: 'branch' };
  if (update.newSha === NO_COMMIT) return { skipped: 'deleted' };
  if (branchTip !== update.oldSha) return { refused: `branch ${serviceBranch} moved while this push was on its way: fetch, then push again` };
  return { deploy: update.newSha };
}
