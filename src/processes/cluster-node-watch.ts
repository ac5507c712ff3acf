import { recordNodeStates } from '../../commands/cluster/handlers.js';
import type { CommandContext } from '../../commands/shared/command-context.js';
import { findCluster } from '../../projections/cluster-queries.js';
import type { ManagerHost } from '../cluster/manager-host.js';
import type { NodePrivilegeCheck } from '../cluster/node-privilege-check.js';
import { listSwarmNodes } from '../cluster/swarm-engine.js';
import type { SqlExecutor } from '../db/sql-client.js';
import type { Logger } from '../logger.js';
import { LABEL } from '../runtime/container-runtime.js';
import type { Reactor } from './reactor.js';

/**
 * Records when Swarm stops hearing from a node, and when it hears again (`node.down` notifications follow
 * from the events). Swarm's own view is polled at each reconcile tick; the log keeps what was seen once.
 */
export class ClusterNodeWatch implements Reactor {
  readonly name = 'cluster-node-watch';

  constructor(
    private readonly deps: { cmd: () => CommandContext; db: SqlExecutor; engine: ManagerHost; privileges?: NodePrivilegeCheck },
    private readonly log: Logger,
  ) {}

  async handle(): Promise<void> {}

  async reconcile(): Promise<void> {
    if (!(await findCluster(this.deps.db))) return;
    try {
      const nodes = await listSwarmNodes(await this.deps.engine.docker(), LABEL.service);
      await recordNodeStates(this.deps.cmd(), nodes);
      // In the background: a node that does not answer must not hold the tick.
      this.deps.privileges?.check(nodes);
    } catch (error) {
      this.log.warn('the Swarm manager could not be asked for its nodes', { error: String(error) });
    }
  }
}
