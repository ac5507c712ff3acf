import { z } from 'zod';
import type { HookProvider } from '../../../commands/auto-deploy/events.js';
import type { PushedRef } from '../../../commands/auto-deploy/push-verdict.js';
import type { HeaderOf } from './signatures.js';

/** What a verified delivery says: a push, a ping, or another event Slipway does not act on. */
export type HookMessage =
  | { kind: 'push'; event: string; deliveryId: string | null; push: PushedRef }
  | { kind: 'ping'; event: string; deliveryId: string | null }
  | { kind: 'other'; event: string; deliveryId: string | null };

const sha = z.string().regex(/^[0-9a-f]{40}$/);
const NULL_SHA = '0'.repeat(40);
const text = z.string().max(100_000);
const paths = z.array(z.string().max(4096)).max(10_000).default([]);
/** GitHub, Gitea/Forgejo and GitLab list each commit's files; the generic format follows them. */
const commit = z.object({ id: z.string(), message: text.default(''), added: paths, modified: paths, removed: paths });
const githubLikePush = z.object({
  ref: z.string().max(1024),
  after: sha,
  commits: z.array(commit).max(10_000).default([]),
  head_commit: z.object({ id: z.string(), message: text }).nullable().optional(),
});
type GithubLikePush = z.infer<typeof githubLikePush>;

/**
 * GitHub lists at most 2048 commits with their files; Gitea and GitLab list some of `total_commits` /
 * `total_commits_count`. A list that may be cut short leaves the files unknown, and path filters then do not
 * hold the push back.
 */
const GITHUB_LISTED_COMMITS = 2048;

function pushedRef(p: GithubLikePush, complete: (listed: number) => boolean): PushedRef {
  const head = p.commits.find((c) => c.id === p.after);
  return {
    ref: p.ref,
    after: p.after === NULL_SHA ? null : p.after,
    headMessage: p.head_commit?.message ?? head?.message ?? p.commits[p.commits.length - 1]?.message ?? null,
    files: p.commits.length > 0 && complete(p.commits.length) ? [...new Set(p.commits.flatMap((c) => [...c.added, ...c.modified, ...c.removed]))] : null,
  };
}

/** Bitbucket Cloud's `repo:push`: `push.changes[].new` is the ref after the push (null when deleted); no file lists. */
const bitbucketPush = z.object({
  push: z.object({
    changes: z
      .array(
        z.object({
          new: z.object({ type: z.string(), name: z.string().max(1024), target: z.object({ hash: sha, message: text.default('') }) }).nullable(),
        }),
      )
      .min(1)
      .max(1000),
  }),
});

const gitlabPush = githubLikePush.extend({ total_commits_count: z.number().int().optional() });
const giteaPush = githubLikePush.extend({ total_commits: z.number().int().optional() });
const genericBody = z.object({ id: z.string().regex(/^[\x21-\x7e]{1,200}$/).optional(), event: z.enum(['push', 'ping']).default('push') }).loose();

/** A delivery id as a header names it: printable and short, or none. */
const idOf = (value: string) => (/^[\x21-\x7e]{1,200}$/.test(value) ? value : null);

/** Reads a verified body as its provider shapes it; throws a ZodError when it is not shaped so. */
export function readHookMessage(provider: HookProvider, header: HeaderOf, body: unknown): HookMessage {
  switch (provider) {
    case 'github': {
      const event = header('x-github-event');
      const deliveryId = idOf(header('x-github-delivery'));
      if (event === 'ping') return { kind: 'ping', event, deliveryId };
      if (event !== 'push') return { kind: 'other', event, deliveryId };
      return { kind: 'push', event, deliveryId, push: pushedRef(githubLikePush.parse(body), (n) => n < GITHUB_LISTED_COMMITS) };
    }
    case 'gitea': {
      const event = header('x-gitea-event') || header('x-forgejo-event');
      const deliveryId = idOf(header('x-gitea-delivery') || header('x-forgejo-delivery'));
      if (event !== 'push') return { kind: 'other', event, deliveryId };
      const p = giteaPush.parse(body);
      return { kind: 'push', event, deliveryId, push: pushedRef(p, (n) => n >= (p.total_commits ?? n)) };
    }
    case 'gitlab': {
      const event = header('x-gitlab-event');
      const deliveryId = idOf(header('x-gitlab-event-uuid') || header('webhook-id'));
      if (event !== 'Push Hook' && event !== 'Tag Push Hook') return { kind: 'other', event, deliveryId };
      const p = gitlabPush.parse(body);
      return { kind: 'push', event, deliveryId, push: pushedRef(p, (n) => n >= (p.total_commits_count ?? n)) };
    }
    case 'bitbucket': {
      const event = header('x-event-key');
      const deliveryId = idOf(header('x-request-uuid'));
      if (event === 'diagnostics:ping') return { kind: 'ping', event, deliveryId };
      if (event !== 'repo:push') return { kind: 'other', event, deliveryId };
      const change = bitbucketPush.parse(body).push.changes[0]!.new;
      if (!change) return { kind: 'other', event, deliveryId };
      const ref = `${change.type === 'tag' ? 'refs/tags' : 'refs/heads'}/${change.name}`;
      return { kind: 'push', event, deliveryId, push: { ref, after: change.target.hash, headMessage: change.target.message, files: null } };
    }
    case 'generic': {
      const b = genericBody.parse(body);
      const deliveryId = b.id ?? null;
      if (b.event === 'ping') return { kind: 'ping', event: 'ping', deliveryId };
      return { kind: 'push', event: 'push', deliveryId, push: pushedRef(githubLikePush.parse(body), () => true) };
    }
  }
}
