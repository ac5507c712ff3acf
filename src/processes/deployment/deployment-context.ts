import { deployment } from '../../../commands/deployment/aggregate.js';
import { causedBy, type CommandContext } from '../../../commands/shared/command-context.js';
import type { Logger } from '../../logger.js';
import { DeploymentLog } from './toolkit/deployment-log.js';

export const DEPLOYER_ACTOR = 'system:deployer';

/** What the deployer appends for a deployment is caused by its DeploymentQueued event and shares its correlation id. */
export async function deploymentContext(cmd: CommandContext, deploymentId: string): Promise<CommandContext> {
  const [queued] = await cmd.store.readStream(`${deployment.category}-${deploymentId}`, { maxCount: 1 });
  return queued ? causedBy(cmd, queued) : { ...cmd, correlationId: deploymentId };
}

/** The deployment's log as the deployer writes it, from line `next` on. */
export function deploymentLog(logger: Logger, cmd: CommandContext, deploymentId: string, next = 1) {
  return new DeploymentLog(cmd.store, deploymentId, (l) => l, { actor: DEPLOYER_ACTOR, correlationId: cmd.correlationId, causationId: cmd.causationId ?? null }, next, (count, error) =>
    logger.error('deployment log lines could not be stored', { deployment: deploymentId, lines: count, error: String(error) }),
  );
}
