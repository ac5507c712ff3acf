import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { conflict, notFound } from '../shared/domain-error.js';
import { parseClusterEvent, type ClusterEvent, type NodeAvailability, type NodeRole } from './events.js';

export const CLUSTER_ID = 'installation';

export interface ClusterNodeIntent {
  availability: NodeAvailability;
  labels: Record<string, string>;
}

export interface ClusterState {
  initialized: boolean;
  managerNodeId: string | null;
  /** What people set of each node; a node never changed has none. */
  nodes: Record<string, ClusterNodeIntent>;
  removed: string[];
  /** Nodes recorded down and not back since. */
  down: string[];
}

const evolution: Evolution<ClusterState, ClusterEvent> = {
  category: 'cluster',
  initial: { initialized: false, managerNodeId: null, nodes: {}, removed: [], down: [] },
  evolve(state, event) {
    switch (event.type) {
      case 'ClusterInitialized':
        return { ...state, initialized: true, managerNodeId: event.data.managerNodeId };
      case 'ClusterNodeChanged': {
        const { nodeId, availability, labels } = event.data;
        return { ...state, nodes: { ...state.nodes, [nodeId]: { availability, labels } } };
      }
      case 'ClusterNodeRemoved': {
        const { [event.data.nodeId]: _gone, ...nodes } = state.nodes;
        return { ...state, nodes, removed: [...state.removed, event.data.nodeId], down: state.down.filter((id) => id !== event.data.nodeId) };
      }
      case 'ClusterNodeWentDown':
        return { ...state, down: [...state.down, event.data.nodeId] };
      case 'ClusterNodeCameBack':
        return { ...state, down: state.down.filter((id) => id !== event.data.nodeId) };
      default:
        return state;
    }
  },
  parse: parseClusterEvent,
};

const requireCluster = (state: ClusterState) => {
  if (!state.initialized) throw conflict('this installation is not a cluster: run `slipway cluster init` (POST /api/cluster) first');
};

function decideInit(state: ClusterState, init: Extract<ClusterEvent, { type: 'ClusterInitialized' }>['data']): ClusterEvent[] {
  if (state.initialized) throw conflict('this installation is already a cluster');
  return [{ type: 'ClusterInitialized', data: init }];
}

function decideIssueJoinCommand(state: ClusterState, role: NodeRole): ClusterEvent[] {
  requireCluster(state);
  return [{ type: 'ClusterJoinCommandIssued', data: { role } }];
}

/**
 * A node's availability and labels. `current` is what Swarm reports now; changing to what already holds records
 * nothing. The manager Slipway runs on is never drained: its Caddy and registry would stop.
 */
function decideChangeNode(state: ClusterState, nodeId: string, current: ClusterNodeIntent, change: Partial<ClusterNodeIntent>): ClusterEvent[] {
  requireCluster(state);
  const next: ClusterNodeIntent = { availability: change.availability ?? current.availability, labels: change.labels ?? current.labels };
  if (nodeId === state.managerNodeId && next.availability !== 'active') throw conflict('the manager Slipway runs on stays active (its proxy and registry run there)');
  const same = next.availability === current.availability && JSON.stringify(sorted(next.labels)) === JSON.stringify(sorted(current.labels));
  return same ? [] : [{ type: 'ClusterNodeChanged', data: { nodeId, ...next } }];
}

/** Only a drained node that Swarm reports down (it left, or its machine is gone) is removed: nothing runs there. */
function decideRemoveNode(state: ClusterState, nodeId: string, live: { availability: NodeAvailability; down: boolean } | null): ClusterEvent[] {
  requireCluster(state);
  if (!live) throw notFound('node');
  if (nodeId === state.managerNodeId) throw conflict('the manager Slipway runs on cannot be removed');
  if (live.availability !== 'drain') throw conflict('drain the node first (PATCH its availability to "drain"), so its tasks move');
  if (!live.down) throw conflict('the node is still up: run `docker swarm leave` on it first');
  return [{ type: 'ClusterNodeRemoved', data: { nodeId } }];
}

const sorted = (labels: Record<string, string>) => Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));

/**
 * What Swarm reports of the nodes now, against what was recorded: a node newly not `ready` went down, a node
 * recorded down that is `ready` again came back. A removed node is no one's concern any more.
 */
/**
 * Swarm's states of a node that is away. `unknown` is not one: a node that is joining, or every node just after
 * the manager restarted, reads `unknown` until its first heartbeat, and that is no outage to tell anyone about.
 */
const AWAY = new Set(['down', 'disconnected']);

function decideNodeStates(state: ClusterState, live: readonly { id: string; hostname: string; address: string; state: string }[]): ClusterEvent[] {
  if (!state.initialized) return [];
  const events: ClusterEvent[] = [];
  for (const node of live) {
    if (state.removed.includes(node.id)) continue;
    const recordedDown = state.down.includes(node.id);
    if (AWAY.has(node.state) && !recordedDown) events.push({ type: 'ClusterNodeWentDown', data: { nodeId: node.id, hostname: node.hostname, address: node.address, state: node.state } });
    if (node.state === 'ready' && recordedDown) events.push({ type: 'ClusterNodeCameBack', data: { nodeId: node.id, hostname: node.hostname } });
  }
  return events;
}

/** The cluster aggregate and its command vocabulary. */
export const cluster = defineAggregate(evolution, {
  init: decideInit,
  issueJoinCommand: decideIssueJoinCommand,
  changeNode: decideChangeNode,
  removeNode: decideRemoveNode,
  nodeStates: decideNodeStates,
});
