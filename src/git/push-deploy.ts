import type { Duplex } from 'node:stream';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { isFinished } from '../../commands/deployment/aggregate.js';
import { abortDeployment, queueDeployment } from '../../commands/deployment/handlers.js';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { findDeployment, listDeploymentLogs, type DeploymentRow } from '../../projections/deployment-queries.js';
import type { Slipway } from '../slipway.js';

const SHA = /^[0-9a-f]{40}$/;
const NO_COMMIT = '0'.repeat(40);

/** What the pre-receive hook sends: the ref updates git read on its standard input. */
const hookRequest = z.object({
  updates: z.array(z.object({ oldSha: z.string().regex(SHA), newSha: z.string().regex(SHA), ref: z.string().min(1).max(1024) })).max(1000),
});

/** What Slipway answers the hook, one JSON object a line: lines to print, then the verdict. */
type HookAnswer = { line: string } | { ok: true } | { ok: false; reason: string };

/**
 * Services with a push deploying now. Git moves a ref only if it still holds what the push started from, so a
 * second push deploying beside the first could go live and then see its ref update refused: it is turned away
 * at once instead, as Heroku does. One process runs an installation, so this set is the whole truth.
 */
const deploying = new Set<string>();

export interface PushSession {
  app: Slipway;
  serviceId: string;
  branch: string;
  /** Where the branch points in the repository now (the zero id when it does not exist yet). */
  branchTip: () => Promise<string>;
  /** Why these updates must be refused for the repository's quota or refs; null when they fit. */
  overLimits: (updates: readonly { oldSha: string; newSha: string; ref: string }[]) => Promise<string | null>;
  cmd: CommandContext;
}

/**
 * Answers one push's pre-receive hook: a push that moves the service's branch to a commit deploys that commit
 * and streams its log; the verdict is the deployment's outcome. Other refs are stored and deploy nothing.
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
    const overLimits = await session.overLimits(parsed.data.updates);
    if (overLimits) return { ok: false, reason: overLimits };
    const ref = `refs/heads/${session.branch}`;
    const update = parsed.data.updates.find((u) => u.ref === ref);
    if (!update) return { ok: true };
    if (update.newSha === NO_COMMIT) {
      send({ line: `Branch ${session.branch} deleted here; nothing deployed.` });
      return { ok: true };
    }
    if (deploying.has(session.serviceId)) return { ok: false, reason: 'another push to this service is deploying: push again once it has ended' };
    deploying.add(session.serviceId);
    if ((await session.branchTip()) !== update.oldSha) {
      deploying.delete(session.serviceId);
      return { ok: false, reason: `branch ${session.branch} moved while this push was on its way: fetch, then push again` };
    }
    try {
      return await deployPushed(update.newSha);
    } finally {
      deploying.delete(session.serviceId);
    }
  }

  async function deployPushed(sha: string): Promise<HookAnswer> {
    const { id, position } = await queueDeployment(session.cmd, session.serviceId, {
      kind: 'deploy',
      trigger: 'push',
      releaseId: null,
      config: 'current',
      commitSha: sha,
      source: 'push',
    });
    await session.app.settle(position);
    send({ line: `Deploying ${sha.slice(0, 12)} (deployment ${id})` });
    const ended = await follow(session.app, id, (text) => send({ line: text }), () => hookGone);
    if (!ended) {
      // The pusher went away: its objects leave with its push, and the ref will not move.
      await abortDeployment(session.cmd, id).catch(() => undefined);
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

const POLL_MS = 1_000;

/** Passes on the deployment's log lines as they are recorded; its row once it has ended, null if `gone` first. */
function follow(app: Slipway, id: string, onLine: (line: string) => void, gone: () => boolean): Promise<DeploymentRow | null> {
  return new Promise((resolve, reject) => {
    let last = 0;
    let running = false;
    let again = false;
    let done = false;
    const finish = (row: DeploymentRow | null) => {
      done = true;
      unsubscribe();
      clearInterval(timer);
      resolve(row);
    };
    const pump = async () => {
      do {
        again = false;
        if (gone()) return finish(null);
        const row = await findDeployment(app.db, id);
        for (const log of await listDeploymentLogs(app.db, id, last)) {
          onLine(log.line);
          last = log.id;
        }
        if (!row) return finish(null);
        if (isFinished(row.status)) return finish(row);
      } while (again && !done);
    };
    const kick = () => {
      if (done) return;
      if (running) {
        again = true;
        return;
      }
      running = true;
      pump()
        .catch((error: unknown) => {
          done = true;
          unsubscribe();
          clearInterval(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        })
        .finally(() => (running = false));
    };
    const unsubscribe = app.runner.onApplied((batch) => {
      if (batch.some((e) => e.streamId.endsWith(id))) kick();
    });
    // Also on a clock: the end of a push must not hang on a missed wake-up.
    const timer = setInterval(kick, POLL_MS);
    kick();
  });
}
