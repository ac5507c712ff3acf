import { deployment } from '../deployment/aggregate.js';
import { deploymentExists, queueDeployment } from '../deployment/handlers.js';
import { streamOf } from '../shared/aggregate.js';
import type { CommandContext } from '../shared/command-context.js';
import { execute, latest, loadAggregate } from '../shared/execute.js';
import { queueAcceptedDelivery } from './accept-delivery.js';
import { autoDeploy, replayOf, webhookDeploymentId, type SeenDelivery, type VerifiedDelivery } from './aggregate.js';
import type { SkipReason, WebhookDelivery } from './events.js';
import { supersedeQueued } from './handlers.js';
import { ANOTHER_PUSH_DEPLOYING, gitPushRunning, supersededBy, type OtherDeployment, type PushChannel, type QueuedPush } from './push-supersede.js';
import { decideGitPush, type GitRefUpdate } from './push-verdict.js';

/** What receiving a push needs besides the log. */
export interface ReceivePushDeps {
  cmd: CommandContext;
  /** Waits until the read models have applied `position`. */
  settle: (position: string | null) => Promise<void>;
  /** The ids of the service's queued and running deployments, as the read model has them. */
  unfinishedDeploymentsOf: (serviceId: string) => Promise<string[]>;
}

/** A Git host's delivery whose signature verified. */
export interface WebhookPush {
  channel: 'webhook';
  serviceBranch: string;
  delivery: VerifiedDelivery;
}

/** A `git push` to Slipway's remote, in its pre-receive step. */
export interface GitPush {
  channel: 'git';
  serviceBranch: string;
  updates: readonly GitRefUpdate[];
  /** Where the service's branch points now (the zero id when it does not exist yet). */
  branchTip: string;
}

export type DeliveryOutcome = { duplicate: true } | { pong: true } | { skipped: SkipReason } | { deploymentId: string };
export type GitPushOutcome = { deploymentId: string; commitSha: string } | { skipped: 'branch' | 'deleted' } | { refused: string };

export interface Received<O> {
  outcome: O;
  /** The latest position it wrote (null when it wrote nothing). */
  position: string | null;
}

/**
 * What a push means, whichever way it came: whether it repeats one seen before (deliveries), whether it deploys
 * (the verdict), the deployment it queues, and which queued deployments of earlier pushes it replaces (the one
 * supersede rule, `supersededBy`). The adapters only authenticate, read the push and map the answer.
 */
export function receivePush(deps: ReceivePushDeps, serviceId: string, push: WebhookPush): Promise<Received<DeliveryOutcome>>;
export function receivePush(deps: ReceivePushDeps, serviceId: string, push: GitPush): Promise<Received<GitPushOutcome>>;
export function receivePush(deps: ReceivePushDeps, serviceId: string, push: WebhookPush | GitPush): Promise<Received<DeliveryOutcome | GitPushOutcome>> {
  return push.channel === 'webhook' ? receiveDelivery(deps, serviceId, push) : receiveGitPush(deps, serviceId, push);
}

/**
 * A verified delivery, exactly once: it is recorded first (with the deployment id derived from its body), and
 * only then is that deployment queued, with `no_stream`. A failure between the two is repaired by the
 * redelivery (it is recorded `duplicate` of the accepted one and queues the same id, which exists at most once)
 * or, without one, by the deployer's periodic reconcile.
 * Two copies at once are ordered by the service's stream: one is `deployed`, the other `duplicate`.
 */
async function receiveDelivery(deps: ReceivePushDeps, serviceId: string, { serviceBranch, delivery }: WebhookPush): Promise<Received<DeliveryOutcome>> {
  const { cmd } = deps;
  const deploymentId = webhookDeploymentId(serviceId, delivery.bodyDigest);
  const alreadyQueued = delivery.message.kind === 'push' && (await deploymentExists(cmd, deploymentId));
  // As the state was when the delivery was recorded (the last attempt's, after a conflict).
  const decidedOn: { original: SeenDelivery | null; previousPushDeploymentId: string | null } = { original: null, previousPushDeploymentId: null };
  const { events, position } = await execute(cmd, autoDeploy, serviceId, (state) => {
    decidedOn.original = replayOf(state, { ...delivery, verdict: 'received' });
    decidedOn.previousPushDeploymentId = state.lastPushDeploymentId;
    return autoDeploy.decide.delivery(state, serviceId, serviceBranch, delivery, alreadyQueued);
  });
  const verdict = (events[0]!.data as WebhookDelivery).verdict;
  const after = delivery.message.kind === 'push' ? delivery.message.push.after : null;

  if (verdict === 'deployed' && after) {
    const queued = await queueAcceptedDelivery(cmd, serviceId, deploymentId, after);
    const superseded = await supersedeEarlierPushes(deps, serviceId, 'webhook', { id: deploymentId, commitSha: after }, decidedOn.previousPushDeploymentId);
    return { outcome: { deploymentId }, position: latest(position, queued.position, superseded) };
  }
  if (verdict === 'duplicate' && after && decidedOn.original?.deploymentId === deploymentId) {
    // The accepted copy may have failed before its deployment was queued: queue it now (a no-op if it was).
    const queued = await queueAcceptedDelivery(cmd, serviceId, deploymentId, after);
    return { outcome: { duplicate: true }, position: latest(position, queued.position) };
  }
  if (verdict === 'pong') return { outcome: { pong: true }, position };
  if (verdict.startsWith('skipped:')) return { outcome: { skipped: verdict.slice('skipped:'.length) as SkipReason }, position };
  return { outcome: { duplicate: true }, position };
}

/**
 * A `git push` that moves the service's branch queues a build of exactly the pushed commit. While another
 * `git push` of the service deploys, it is refused (its ref could not move after that one's): before queueing,
 * and again after, for one that started while this one was being queued.
 */
async function receiveGitPush(deps: ReceivePushDeps, serviceId: string, push: GitPush): Promise<Received<GitPushOutcome>> {
  const { cmd } = deps;
  const verdict = decideGitPush(push.updates, push.serviceBranch, push.branchTip);
  if ('skipped' in verdict || 'refused' in verdict) return { outcome: verdict, position: null };
  if (gitPushRunning('git', null, await otherDeployments(deps, serviceId, null, null))) return { outcome: { refused: ANOTHER_PUSH_DEPLOYING }, position: null };

  const commitSha = verdict.deploy;
  const queued = await queueDeployment(cmd, serviceId, { kind: 'deploy', trigger: 'push', releaseId: null, config: 'current', commitSha, source: 'push' });
  const superseded = await supersedeEarlierPushes(deps, serviceId, 'git', { id: queued.id, commitSha }, null).catch(async (error: unknown) => {
    // The push is refused when this fails, so its branch will not move: its deployment must not go live either.
    await giveUp(cmd, queued.id, 'the push could not be received').catch(() => undefined);
    throw error;
  });
  return { outcome: { deploymentId: queued.id, commitSha }, position: latest(queued.position, superseded) };
}

/**
 * Applies the supersede rule for the deployment a push just queued: the earlier pushes' deployments still
 * queued end `canceled`, replaced by it. `previous` is the one the service's delivery stream names (the read
 * model may not show it yet). A `git push` that finds another one's deployment running after all gives its own
 * up. Answers the latest position written.
 */
async function supersedeEarlierPushes(
  deps: ReceivePushDeps,
  serviceId: string,
  channel: PushChannel,
  own: { id: string; commitSha: string },
  previous: string | null,
): Promise<string | null> {
  const { cmd } = deps;
  const ownQueuedAt = await queuedPositionOf(cmd, own.id);
  if (ownQueuedAt === null) return null;
  // Every deployment queued before this one is in the read model once it has applied this one.
  await deps.settle(ownQueuedAt);
  const others = await otherDeployments(deps, serviceId, own.id, previous);
  const mine: QueuedPush = { id: own.id, queuedAt: ownQueuedAt };
  let position: string | null = null;
  for (const id of supersededBy(mine, others)) position = latest(position, (await supersedeQueued(cmd, id, { deploymentId: own.id, commitSha: own.commitSha })).position);
  // As they are now: one that could not be canceled had started meanwhile.
  const now = await Promise.all(others.map(async (d) => ({ ...d, status: (await loadAggregate(cmd, deployment, d.id)).state.status })));
  const running = gitPushRunning(channel, own.id, now);
  if (running) position = latest(position, await giveUp(cmd, own.id, ANOTHER_PUSH_DEPLOYING));
  return position;
}

/** Its own deployment ends before it runs: canceled while queued, or stopped if the deployer took it meanwhile. */
async function giveUp(cmd: CommandContext, id: string, reason: string): Promise<string | null> {
  const { position } = await execute(cmd, deployment, id, (s) => (s.status === 'queued' ? deployment.decide.cancel(s, reason, null) : s.status === 'running' ? deployment.decide.abort(s) : []));
  return position;
}

/** The service's other unfinished deployments, as their streams have them (`previous` included). */
async function otherDeployments(deps: ReceivePushDeps, serviceId: string, ownId: string | null, previous: string | null): Promise<OtherDeployment[]> {
  const ids = new Set(await deps.unfinishedDeploymentsOf(serviceId));
  if (previous) ids.add(previous);
  if (ownId) ids.delete(ownId);
  return Promise.all([...ids].map((id) => deploymentOf(deps.cmd, id)));
}

async function deploymentOf(cmd: CommandContext, id: string): Promise<OtherDeployment> {
  const { state } = await loadAggregate(cmd, deployment, id);
  return { id, trigger: state.request.trigger, status: state.status, queuedAt: state.status === 'none' ? null : await queuedPositionOf(cmd, id) };
}

/** Where a deployment's `DeploymentQueued` event is in the log; null if it was never queued. */
async function queuedPositionOf(cmd: CommandContext, id: string): Promise<string | null> {
  const [first] = await cmd.store.readStream(streamOf(deployment.category, id), { maxCount: 1 });
  return first?.position ?? null;
}
