import { queueDeploymentOnce } from '../deployment/handlers.js';
import type { CommandContext } from '../shared/command-context.js';

/**
 * Queues the deployment an accepted delivery was recorded with; a no-op once it exists. Besides `receivePush`
 * (the delivery, and its redelivery), the deployer's periodic reconcile calls it for accepted deliveries whose
 * deployment was never queued.
 */
export const queueAcceptedDelivery = (ctx: CommandContext, serviceId: string, deploymentId: string, commitSha: string) =>
  queueDeploymentOnce(ctx, deploymentId, serviceId, { kind: 'deploy', trigger: 'webhook', releaseId: null, config: 'current', commitSha });
