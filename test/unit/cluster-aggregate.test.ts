import t from 'tap';
import { cluster, decideChangeNode, decideInit, decideIssueJoinCommand, decideNodeStates, decideRemoveNode, type ClusterState } from '../../commands/cluster/aggregate.js';
import type { ClusterEvent } from '../../commands/cluster/events.js';

const given = (...events: ClusterEvent[]): ClusterState => events.reduce(cluster.evolve, cluster.initial);
const initialized: ClusterEvent = {
  type: 'ClusterInitialized',
  data: { swarmId: 's1', managerNodeId: 'm1', advertiseAddress: '10.0.0.1', registry: '10.0.0.1:5000', registryPassword: 'sealed' },
};
const active = { availability: 'active' as const, labels: {} };

t.test('init once; nothing else before it', async (t) => {
  t.same(decideInit(given(), initialized.data), [initialized]);
  t.throws(() => decideInit(given(initialized), initialized.data), /already a cluster/);
  t.throws(() => decideIssueJoinCommand(given(), 'worker'), /not a cluster/);
  t.throws(() => decideChangeNode(given(), 'n2', active, { availability: 'drain' }), /not a cluster/);
});

t.test('a join command is recorded by role, never with its token', async (t) => {
  const [event] = decideIssueJoinCommand(given(initialized), 'worker');
  t.same(event, { type: 'ClusterJoinCommandIssued', data: { role: 'worker' } });
});

t.test('node changes: recorded when they change something; the manager stays active', async (t) => {
  const state = given(initialized);
  t.same(decideChangeNode(state, 'n2', active, { availability: 'drain' }), [{ type: 'ClusterNodeChanged', data: { nodeId: 'n2', availability: 'drain', labels: {} } }]);
  t.same(decideChangeNode(state, 'n2', { availability: 'active', labels: { a: '1', b: '2' } }, { labels: { b: '2', a: '1' } }), [], 'the same labels in another order');
  t.same(decideChangeNode(state, 'n2', active, { labels: { zone: 'eu' } })[0]?.data, { nodeId: 'n2', availability: 'active', labels: { zone: 'eu' } }, 'labels replace, availability kept');
  t.throws(() => decideChangeNode(state, 'm1', active, { availability: 'pause' }), /manager/);
  t.same(decideChangeNode(state, 'm1', active, { labels: { db: 'yes' } }).length, 1, 'the manager can be labelled');
  const changed = given(initialized, { type: 'ClusterNodeChanged', data: { nodeId: 'n2', availability: 'drain', labels: {} } });
  t.same(changed.nodes.n2, { availability: 'drain', labels: {} });
});

t.test('removal: only a drained node that is down', async (t) => {
  const state = given(initialized);
  t.throws(() => decideRemoveNode(state, 'n2', null), /not found/);
  t.throws(() => decideRemoveNode(state, 'm1', { availability: 'drain', down: true }), /manager/);
  t.throws(() => decideRemoveNode(state, 'n2', { availability: 'active', down: true }), /drain the node first/);
  t.throws(() => decideRemoveNode(state, 'n2', { availability: 'drain', down: false }), /still up/);
  const events = decideRemoveNode(state, 'n2', { availability: 'drain', down: true });
  t.same(events, [{ type: 'ClusterNodeRemoved', data: { nodeId: 'n2' } }]);
  const after = given(initialized, { type: 'ClusterNodeChanged', data: { nodeId: 'n2', availability: 'drain', labels: {} } }, ...events);
  t.same(after.nodes, {});
  t.same(after.removed, ['n2']);
});

t.test('node states: down once when Swarm stops hearing from a node, back once when it hears again', async (t) => {
  const node = (id: string, state: string) => ({ id, hostname: `host-${id}`, address: `10.0.0.${id.length}`, state });
  t.same(decideNodeStates(cluster.initial, [node('n2', 'down')]), [], 'nothing before the installation is a cluster');
  const state = given(initialized);
  t.same(decideNodeStates(state, [node('m1', 'ready'), node('n2', 'ready')]), [], 'all ready: nothing to say');
  t.same(decideNodeStates(state, [node('m1', 'ready'), node('n2', 'unknown')]), [], 'a node joining (no heartbeat yet) is not down');
  const down = decideNodeStates(state, [node('m1', 'ready'), node('n2', 'down')]);
  t.same(down, [{ type: 'ClusterNodeWentDown', data: { nodeId: 'n2', hostname: 'host-n2', address: '10.0.0.2', state: 'down' } }]);
  const after = given(initialized, ...down);
  t.same(decideNodeStates(after, [node('n2', 'disconnected')]), [], 'told once while it stays away');
  const back = decideNodeStates(after, [node('n2', 'ready')]);
  t.same(back, [{ type: 'ClusterNodeCameBack', data: { nodeId: 'n2', hostname: 'host-n2' } }]);
  t.same(given(initialized, ...down, ...back).down, []);
  const removed = given(initialized, ...down, { type: 'ClusterNodeRemoved', data: { nodeId: 'n2' } });
  t.same(removed.down, [], 'a removed node is no longer down');
  t.same(decideNodeStates(removed, [node('n2', 'down')]), [], 'nor told again');
});
