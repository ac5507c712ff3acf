import { createHmac, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { checkAnswer } from './openapi-check.js';

/** One delivery as a Git host sends it: its headers (signature included) and its exact body. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

const hmac = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('hex');
const repository = { id: 1296269, name: 'shop', full_name: 'acme/shop', private: false, html_url: 'https://git.example/acme/shop', default_branch: 'main' };
const person = { name: 'Ada', email: 'ada@example.com', username: 'ada' };

export interface PushCommit {
  id: string;
  message: string;
  added?: string[];
  modified?: string[];
  removed?: string[];
}

/** A commit as GitHub, Gitea and GitLab list them in a push (GitLab's has `title` too). */
const listed = (c: PushCommit) => ({
  id: c.id,
  tree_id: 'f'.repeat(40),
  distinct: true,
  message: c.message,
  timestamp: '2026-11-26T09:00:00Z',
  url: `https://git.example/acme/shop/commit/${c.id}`,
  author: person,
  committer: person,
  added: c.added ?? [],
  removed: c.removed ?? [],
  modified: c.modified ?? [],
});

/** GitHub's `push` event (https://docs.github.com/webhooks/webhook-events-and-payloads#push). */
export function githubPush(secret: string, ref: string, before: string, commits: PushCommit[], id: string = randomUUID()): Delivery {
  const after = commits.at(-1)!.id;
  const body = JSON.stringify({
    ref, before, after, created: false, deleted: false, forced: false, base_ref: null,
    compare: `https://github.com/acme/shop/compare/${before.slice(0, 12)}...${after.slice(0, 12)}`,
    commits: commits.map(listed), head_commit: listed(commits.at(-1)!), repository, pusher: { name: 'ada', email: 'ada@example.com' },
    sender: { login: 'ada', id: 1, type: 'User' },
  });
  return github(secret, 'push', body, id);
}

/** GitHub's `ping`, sent when a hook is created. */
export const githubPing = (secret: string, id: string = randomUUID()) =>
  github(secret, 'ping', JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 42, hook: { type: 'Repository', id: 42, active: true, events: ['push'] }, repository }), id);

function github(secret: string, event: string, body: string, id: string): Delivery {
  return {
    headers: { 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/abc', 'x-github-event': event, 'x-github-delivery': id, 'x-hub-signature-256': `sha256=${hmac(secret, body)}` },
    body,
  };
}

/** GitLab's Push Hook (https://docs.gitlab.com/user/project/integrations/webhook_events/#push-events). */
function gitlabPushBody(ref: string, before: string, commits: PushCommit[], tag = false) {
  return JSON.stringify({
    object_kind: tag ? 'tag_push' : 'push', event_name: tag ? 'tag_push' : 'push', before, after: commits.at(-1)!.id, ref, ref_protected: true,
    checkout_sha: commits.at(-1)!.id, user_id: 4, user_name: 'Ada', user_username: 'ada', project_id: 15,
    project: { id: 15, name: 'shop', path_with_namespace: 'acme/shop', default_branch: 'main' },
    commits: commits.map((c) => ({ ...listed(c), title: c.message.split('\n')[0] })), total_commits_count: commits.length, repository: { name: 'shop' },
  });
}

/** With the secret token in `X-Gitlab-Token`, as GitLab sends it. */
export function gitlabPush(secret: string, ref: string, before: string, commits: PushCommit[], id: string = randomUUID()): Delivery {
  const tag = ref.startsWith('refs/tags/');
  return {
    headers: { 'content-type': 'application/json', 'x-gitlab-event': tag ? 'Tag Push Hook' : 'Push Hook', 'x-gitlab-event-uuid': id, 'x-gitlab-token': secret },
    body: gitlabPushBody(ref, before, commits, tag),
  };
}

/** Signed as GitLab's signing token does (Standard Webhooks: `webhook-signature: v1,<base64>` over `id.timestamp.body`). */
export function gitlabSignedPush(secret: string, ref: string, before: string, commits: PushCommit[], id: string = randomUUID(), timestamp = Math.floor(Date.now() / 1000)): Delivery {
  const body = gitlabPushBody(ref, before, commits);
  const signature = createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    headers: {
      'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': id,
      'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}`,
    },
    body,
  };
}

/** Gitea's push (https://docs.gitea.com/usage/webhooks): hex HMAC in `X-Gitea-Signature` (Forgejo: `X-Forgejo-Signature`). */
export function giteaPush(secret: string, ref: string, before: string, commits: PushCommit[], id: string = randomUUID(), forgejo = false): Delivery {
  const body = JSON.stringify({
    ref, before, after: commits.at(-1)!.id, compare_url: 'https://gitea.example/acme/shop/compare', commits: commits.map(listed),
    total_commits: commits.length, head_commit: listed(commits.at(-1)!), repository, pusher: { login: 'ada' }, sender: { login: 'ada' },
  });
  const brand = forgejo ? 'forgejo' : 'gitea';
  return { headers: { 'content-type': 'application/json', [`x-${brand}-event`]: 'push', [`x-${brand}-delivery`]: id, [`x-${brand}-signature`]: hmac(secret, body) }, body };
}

/** Bitbucket Cloud's `repo:push` (https://support.atlassian.com/bitbucket-cloud/docs/event-payloads/#Push), signed `X-Hub-Signature: sha256=…`. */
export function bitbucketPush(secret: string, name: string, type: 'branch' | 'tag', hash: string, message: string, id: string = randomUUID()): Delivery {
  const target = { type: 'commit', hash, message, date: '2026-11-26T09:00:00+00:00', author: { raw: 'Ada <ada@example.com>' } };
  const body = JSON.stringify({
    actor: { display_name: 'Ada' }, repository: { full_name: 'acme/shop', type: 'repository' },
    push: { changes: [{ new: { type, name, target }, old: null, created: true, closed: false, forced: false, truncated: false, commits: [target] }] },
  });
  return { headers: { 'content-type': 'application/json', 'x-event-key': 'repo:push', 'x-request-uuid': id, 'x-hub-signature': `sha256=${hmac(secret, body)}` }, body };
}

/** Slipway's own format: `X-Slipway-Signature: t=<unix seconds>,v1=<hex HMAC of "t.body">`. */
export function genericPush(secret: string, ref: string, after: string, extra: Record<string, unknown> = {}, id: string = randomUUID(), t = Math.floor(Date.now() / 1000)): Delivery {
  const body = JSON.stringify({ id, event: 'push', ref, after, ...extra });
  return { headers: { 'content-type': 'application/json', 'x-slipway-signature': `t=${t},v1=${hmac(secret, `${t}.${body}`)}` }, body };
}

/** Sends a delivery from `localAddress` (a loopback address of its own, so its failures are counted apart). */
export function deliver(baseUrl: string, path: string, delivery: Delivery, localAddress = '127.0.0.1'): Promise<{ status: number; body: any }> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method: 'POST', path, headers: delivery.headers, localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('error', reject);
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Not JSON: the text is the body.
        }
        try {
          checkAnswer('POST', path, res.statusCode ?? 0, res.headers['content-type'] ?? null, body);
        } catch (error) {
          return reject(error as Error);
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end(delivery.body);
  });
}
