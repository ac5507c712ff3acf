import type { Duplex } from 'node:stream';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { receivePush, type ReceivePushDeps } from '../../commands/auto-deploy/receive-push.js';
import { abortDeployment } from '../../commands/deployment/handlers.js';
import { followDeployment, type DeploymentFollowDeps } from './follow-deployment.js';
import type { RefUpdate } from './push-limits.js';

const SHA = /^[0-9a-f]{40}$/;

/** What the pre-receive hook sends: the ref updates git read on its standard input. */
const hookRequest = z.object({
  updates: z.array(z.object({ oldSha: z.string().regex(SHA), newSha: z.string().regex(SHA), ref: z.string().min(1).max(1024) })).max(1000),
});

/** What Slipway answers the hook, one JSON object a line: lines to print, then the verdict. */
type HookAnswer = { line: string } | { ok: true } | { ok: false; reason: string };

/** One push's pre-receive step: the service, its repository, and what receiving and following a push need. */
export interface PushSession {
  serviceId: string;
  branch: string;
  /** Where the branch points in the repository now (the zero id when it does not exist yet). */
  branchTip: () => Promise<string>;
  /** Why these updates must be refused for the repository's quota or refs; null when they fit. */
  overLimits: (updates: readonly RefUpdate[]) => Promise<string | null>;
  /** The pusher's command context, and the read side `receivePush` settles and looks at. */
  receive: ReceivePushDeps;
  follow: DeploymentFollowDeps;
}

/**
 * Answers one push's pre-receive hook: what the push means is `receivePush`'s (as for a webhook delivery); a
 * push that deploys streams its deployment's log, and the verdict is the deployment's outcome. Other refs are
 * stored and deploy nothing.
 */
export function answerPreReceive(channel: Duplex, session: PushSession): void {
  const send = (answer: HookAnswer) => {
    if (!channel.destroyed) channel.write(JSON.stringify(answer) + '\n');
  };
  let asked = false;
  let hookGone = false;
  channel.on('error', () => undefined);
  channel.on('close', () => (hookGone = true));
  const lines = createInterface({ input: channel, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (asked) return;
    asked = true;
    lines.close();
    void decide(line)
      .then(send, (error: unknown) => send({ ok: false, reason: `Slipway could not deploy this push: ${error instanceof Error ? error.message : String(error)}` }))
      .finally(() => channel.end());
  });

  async function decide(line: string): Promise<HookAnswer> {
    const parsed = hookRequest.safeParse(safeJson(line));
    if (!parsed.success) return { ok: false, reason: 'the push hook sent an unreadable request' };
    const { updates } = parsed.data;
    const overLimits = await session.overLimits(updates);
    if (overLimits) return { ok: false, reason: overLimits };
    const branchTip = await session.branchTip();
    const { outcome, position } = await receivePush(session.receive, session.serviceId, { channel: 'git', serviceBranch: session.branch, updates, branchTip });
    if ('refused' in outcome) return { ok: false, reason: outcome.refused };
    if ('skipped' in outcome) {
      if (outcome.skipped === 'deleted') send({ line: `Branch ${session.branch} deleted here; nothing deployed.` });
      return { ok: true };
    }
    await session.receive.settle(position);
    return followPushed(outcome.deploymentId, outcome.commitSha);
  }

  async function followPushed(id: string, sha: string): Promise<HookAnswer> {
    send({ line: `Deploying ${sha.slice(0, 12)} (deployment ${id})` });
    const ended = await followDeployment(session.follow, id, (text) => send({ line: text }), () => hookGone);
    if (!ended) {
      // The pusher went away: its objects leave with its push, and the ref will not move.
      await abortDeployment(session.receive.cmd, id).catch(() => undefined);
      return { ok: false, reason: 'the push ended before its deployment' };
    }
    if (ended.status === 'succeeded') return { ok: true };
    return { ok: false, reason: `Deployment ${id} ${ended.status.replace('_', ' ')}: ${ended.reason ?? 'no reason recorded'}` };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
