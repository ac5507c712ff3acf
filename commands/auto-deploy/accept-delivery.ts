import { deploymentExists, queueDeploymentOnce } from '../deployment/handlers.js';
import type { CommandContext } from '../shared/command-context.js';
import { execute, latest } from '../shared/execute.js';
import { autoDeploy, replayOf, webhookDeploymentId, type SeenDelivery, type VerifiedDelivery } from './aggregate.js';
import type { SkipReason, WebhookDelivery } from './events.js';
import { supersedeQueued } from './handlers.js';

export type DeliveryOutcome = { duplicate: true } | { pong: true } | { skipped: SkipReason } | { deploymentId: string };

/**
 * A verified delivery, exactly once: it is recorded first (with the deployment id derived from its body), and
 * only then is that deployment queued, with `no_stream`. A failure between the two is repaired by the
 * redelivery (it is recorded `duplicate` of the accepted one and queues the same id, which exists at most once)
 * or, without one, by the deployer's periodic reconcile.
 * Two copies at once are ordered by the service's stream: one is `deployed`, the other `duplicate`.
 */
export async function acceptDelivery(
  ctx: CommandContext,
  serviceId: string,
  serviceBranch: string,
  delivery: VerifiedDelivery,
): Promise<{ outcome: DeliveryOutcome; position: string | null }> {
  const deploymentId = webhookDeploymentId(serviceId, delivery.bodyDigest);
  const alreadyQueued = delivery.message.kind === 'push' && (await deploymentExists(ctx, deploymentId));
  // As the state was when the delivery was recorded (the last attempt's, after a conflict).
  const decidedOn: { original: SeenDelivery | null; previousPushDeploymentId: string | null } = { original: null, previousPushDeploymentId: null };
  const { events, position } = await execute(ctx, autoDeploy, serviceId, (state) => {
    decidedOn.original = replayOf(state, { ...delivery, verdict: 'received' });
    decidedOn.previousPushDeploymentId = state.lastPushDeploymentId;
    return autoDeploy.decide.delivery(state, serviceId, serviceBranch, delivery, alreadyQueued);
  });
  const recorded = events[0]!.data as WebhookDelivery;
  const verdict = recorded.verdict;
  const push = delivery.message.kind === 'push' ? delivery.message.push : null;

  if (verdict === 'deployed' && push?.after) {
    const queued = await queueAcceptedDelivery(ctx, serviceId, deploymentId, push.after);
    const previous = decidedOn.previousPushDeploymentId;
    const superseded = previous && previous !== deploymentId ? await supersedeQueued(ctx, previous, { deploymentId, commitSha: push.after }) : null;
    return { outcome: { deploymentId }, position: latest(position, queued.position, superseded?.position ?? null) };
  }
  if (verdict === 'duplicate' && push?.after && decidedOn.original?.deploymentId === deploymentId) {
    // The accepted copy may have failed before its deployment was queued: queue it now (a no-op if it was).
    const queued = await queueAcceptedDelivery(ctx, serviceId, deploymentId, push.after);
    return { outcome: { duplicate: true }, position: latest(position, queued.position) };
  }
  if (verdict === 'pong') return { outcome: { pong: true }, position };
  if (verdict.startsWith('skipped:')) return { outcome: { skipped: verdict.slice('skipped:'.length) as SkipReason }, position };
  return { outcome: { duplicate: true }, position };
}

/**
 * Queues the deployment an accepted delivery was recorded with; a no-op once it exists. Besides the redelivery,
 * the deployer's periodic reconcile calls it for accepted deliveries whose deployment was never queued.
 */
export const queueAcceptedDelivery = (ctx: CommandContext, serviceId: string, deploymentId: string, commitSha: string) =>
  queueDeploymentOnce(ctx, deploymentId, serviceId, { kind: 'deploy', trigger: 'webhook', releaseId: null, config: 'current', commitSha });
