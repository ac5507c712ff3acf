import { live, service } from '../service/aggregate.js';
import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { newId } from '../shared/ids.js';
import { assertExplainable, BUILD_REQUEST, type WentLive, deployment, type DeploymentRequest } from './aggregate.js';
import type { DeploymentEvent, FailureExplained } from './events.js';

export async function queueDeployment(ctx: CommandContext, serviceId: string, request: DeploymentRequest = BUILD_REQUEST) {
  const { state } = await loadAggregate(ctx, service, serviceId);
  const current = live(state);
  const id = newId(ctx, 'deployment');
  const { position } = await execute(ctx, deployment, id, (s) => deployment.decide.queue(s, serviceId, current.projectId, request));
  return { id, position };
}

/**
 * Queues deployment `id` unless it exists already: calling it again with the same id (a redelivery, a copy
 * racing this one) is a no-op, since the stream's first append expects `no_stream`.
 */
export async function queueDeploymentOnce(ctx: CommandContext, id: string, serviceId: string, request: DeploymentRequest) {
  const { state } = await loadAggregate(ctx, service, serviceId);
  const current = live(state);
  const { events, position } = await execute(ctx, deployment, id, (s) => (s.status === 'none' ? deployment.decide.queue(s, serviceId, current.projectId, request) : []));
  return { id, queued: events.length > 0, position };
}

/** Whether a deployment with this id was ever queued. */
export const deploymentExists = async (ctx: CommandContext, id: string) => (await loadAggregate(ctx, deployment, id)).revision >= 0;

export const abortDeployment = (ctx: CommandContext, id: string) => execute(ctx, deployment, id, deployment.decide.abort);

/** A deployment still queued ends `canceled`, replaced by `replacedBy` when a newer one takes its place. */
export const cancelQueuedDeployment = (ctx: CommandContext, id: string, reason: string, replacedBy: string | null) =>
  execute(ctx, deployment, id, (s) => deployment.decide.cancel(s, reason, replacedBy));

/** What the deployer records as it goes; each is a no-op once the deployment has ended. */
export const deploymentSteps = {
  start: (ctx: CommandContext, id: string) => execute(ctx, deployment, id, deployment.decide.start),
  progress: (ctx: CommandContext, id: string, event: DeploymentEvent) => execute(ctx, deployment, id, (s) => deployment.decide.progress(s, event)),
  succeed: (ctx: CommandContext, id: string, wentLive?: WentLive) => execute(ctx, deployment, id, (s) => deployment.decide.succeed(s, wentLive)),
  fail: (ctx: CommandContext, id: string, reason: string) => execute(ctx, deployment, id, (s) => deployment.decide.fail(s, reason)),
  markAborted: (ctx: CommandContext, id: string, reason: string) => execute(ctx, deployment, id, (s) => deployment.decide.markAborted(s, reason)),
  rolledBack: (ctx: CommandContext, id: string, reason: string, rollbackDeploymentId: string | null) =>
    execute(ctx, deployment, id, (s) => deployment.decide.rolledBack(s, reason, rollbackDeploymentId)),
  rolledBackBySwarm: (ctx: CommandContext, id: string, reason: string) => execute(ctx, deployment, id, (s) => deployment.decide.rolledBackBySwarm(s, reason)),
  watchFailed: (ctx: CommandContext, id: string, reason: string) => execute(ctx, deployment, id, (s) => deployment.decide.watchFailed(s, reason)),
};

/** The stored explanation of a failed deployment (null if none yet); refuses one that did not fail. */
export async function storedExplanation(ctx: CommandContext, id: string): Promise<FailureExplained | null> {
  const { state } = await loadAggregate(ctx, deployment, id);
  assertExplainable(state);
  return state.explained;
}

export const recordExplanation = (ctx: CommandContext, id: string, explained: FailureExplained) =>
  execute(ctx, deployment, id, (s) => deployment.decide.explain(s, explained));
