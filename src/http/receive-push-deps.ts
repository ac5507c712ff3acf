import type { ReceivePushDeps } from '../../commands/auto-deploy/receive-push.js';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { unfinishedDeploymentIdsOf } from '../../projections/deployment-queries.js';
import type { Slipway } from '../slipway.js';

/** What `receivePush` needs, for the hook route and the Git remote alike: settling, and the service's unfinished deployments. */
export const receivePushDeps = (app: Pick<Slipway, 'db' | 'settle'>, cmd: CommandContext): ReceivePushDeps => ({
  cmd,
  settle: (position) => app.settle(position),
  unfinishedDeploymentsOf: (serviceId) => unfinishedDeploymentIdsOf(app.db, serviceId),
});
