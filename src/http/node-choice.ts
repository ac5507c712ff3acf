import { invalid, conflict } from '../../commands/shared/domain-error.js';
import { findCluster } from '../../projections/cluster-queries.js';
import { findSwarmNode } from '../cluster/swarm-engine.js';
import { LABEL } from '../runtime/container-runtime.js';
import type { Slipway } from '../slipway.js';

/**
 * A node a database service may go to: one of the cluster's, ready and active, asked of Swarm now. A service
 * on the manager's engine (`from` null) is on the manager's node already: moving it there would put two
 * containers on one volume.
 */
export async function requireNodeForDatabase(app: Slipway, nodeId: string, from?: { nodeId: string | null }): Promise<void> {
  const cluster = await findCluster(app.db);
  if (!cluster) throw conflict('nodeId needs a cluster: run `slipway cluster init` (POST /api/cluster) first');
  if (from && from.nodeId === null && nodeId === cluster.manager_node_id) throw conflict('the service is on that node already (the manager’s engine, where Slipway runs)');
  const node = await findSwarmNode(await app.managerHost.docker(), nodeId, LABEL.service);
  if (!node) throw invalid('nodeId', 'the cluster has no node with this id (GET /api/cluster/nodes lists them)');
  if (node.state !== 'ready' || node.availability !== 'active') {
    throw conflict(`node ${nodeId} is ${node.state} and ${node.availability}: a database goes only to a ready, active node`);
  }
}
