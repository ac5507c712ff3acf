import type { DeploymentStatus } from '../deployment/aggregate.js';
import type { DeploymentTrigger } from '../deployment/events.js';

/** Which adapter a push came through: a Git host's webhook delivery, or a `git push` to Slipway's own remote. */
export type PushChannel = 'webhook' | 'git';

/** Another deployment of the service, as its stream has it. */
export interface OtherDeployment {
  id: string;
  trigger: DeploymentTrigger;
  status: DeploymentStatus;
  /** The position of its `DeploymentQueued` event; null when it was never queued. */
  queuedAt: string | null;
}

/** The deployment a push queued, and where in the log. */
export interface QueuedPush {
  id: string;
  queuedAt: string;
}

const byPush = (d: OtherDeployment) => d.trigger === 'webhook' || d.trigger === 'push';

/**
 * The one rule both channels follow: a push replaces every deployment queued by an earlier push of the service
 * (a webhook delivery or a `git push`) that is still waiting in the queue. A running one is not interrupted;
 * deployments asked for otherwise (a request, a rollback) are left to the deployer's own supersede.
 */
export function supersededBy(own: QueuedPush, others: readonly OtherDeployment[]): string[] {
  return others.filter((d) => d.id !== own.id && byPush(d) && d.status === 'queued' && d.queuedAt !== null && d.queuedAt < own.queuedAt).map((d) => d.id);
}

/** What a `git push` answers while another `git push` of the service deploys. */
export const ANOTHER_PUSH_DEPLOYING = 'another push to this service is deploying: push again once it has ended';

/**
 * The `git push` whose deployment runs while another `git push` of the same service comes in, or null. The
 * newer one cannot land: git moves the branch only if it still holds what that push started from, and the
 * running one moves it first when it succeeds. A webhook delivery has no ref to move, so it queues behind.
 */
export function gitPushRunning(channel: PushChannel, ownId: string | null, others: readonly OtherDeployment[]): string | null {
  if (channel !== 'git') return null;
  return others.find((d) => d.id !== ownId && d.trigger === 'push' && d.status === 'running')?.id ?? null;
}
