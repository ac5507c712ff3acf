import t from 'tap';
import { cluster } from '../../commands/cluster/aggregate.js';
import type { ClusterEvent } from '../../commands/cluster/events.js';
import { deciderSpec } from '../helpers/decider-spec.js';

const spec = deciderSpec(cluster);
const initialized: ClusterEvent = {
  type: 'ClusterInitialized',
  data: { swarmId: 's1', managerNodeId: 'm1', advertiseAddress: '10.0.0.1', registry: '10.0.0.1:5000', registryPassword: 'sealed' },
};
const active = { availability: 'active' as const, labels: {} };

t.test('init once; nothing else before it', async (t) => {
  spec.given().when('init', initialized.data).then(t, [initialized]);
  spec.given(initialized).when('init', initialized.data).thenThrows(t, /already a cluster/);
  spec.given().when('issueJoinCommand', 'worker').thenThrows(t, /not a cluster/);
  spec.given().when('changeNode', 'n2', active, { availability: 'drain' }).thenThrows(t, /not a cluster/);
});

t.test('a join command is recorded by role, never with its token', async (t) => {
  spec.given(initialized).when('issueJoinCommand', 'worker').then(t, [{ type: 'ClusterJoinCommandIssued', data: { role: 'worker' } }]);
});

t.test('node changes: recorded when they change something; the manager stays active', async (t) => {
  const state = spec.given(initialized);
  state.when('changeNode', 'n2', active, { availability: 'drain' }).then(t, [{ type: 'ClusterNodeChanged', data: { nodeId: 'n2', availability: 'drain', labels: {} } }]);
  state.when('changeNode', 'n2', { availability: 'active', labels: { a: '1', b: '2' } }, { labels: { b: '2', a: '1' } }).then(t, [], 'the same labels in another order');
  t.same(state.when('changeNode', 'n2', active, { labels: { zone: 'eu' } }).events[0]?.data, { nodeId: 'n2', availability: 'active', labels: { zone: 'eu' } }, 'labels replace, availability kept');
  state.when('changeNode', 'm1', active, { availability: 'pause' }).thenThrows(t, /manager/);
  t.same(state.when('changeNode', 'm1', active, { labels: { db: 'yes' } }).events.length, 1, 'the manager can be labelled');
  const changed = spec.given(initialized, { type: 'ClusterNodeChanged', data: { nodeId: 'n2', availability: 'drain', labels: {} } });
  t.same(changed.state.nodes.n2, { availability: 'drain', labels: {} });
});

t.test('removal: only a drained node that is down', async (t) => {
  const state = spec.given(initialized);
  state.when('removeNode', 'n2', null).thenThrows(t, /not found/);
  state.when('removeNode', 'm1', { availability: 'drain', down: true }).thenThrows(t, /manager/);
  state.when('removeNode', 'n2', { availability: 'active', down: true }).thenThrows(t, /drain the node first/);
  state.when('removeNode', 'n2', { availability: 'drain', down: false }).thenThrows(t, /still up/);
  state.when('removeNode', 'n2', { availability: 'drain', down: true }).then(t, [{ type: 'ClusterNodeRemoved', data: { nodeId: 'n2' } }]);
  const drained = spec.given(initialized, { type: 'ClusterNodeChanged', data: { nodeId: 'n2', availability: 'drain', labels: {} } });
  const after = drained.when('removeNode', 'n2', { availability: 'drain', down: true }).state;
  t.same(after.nodes, {});
  t.same(after.removed, ['n2']);
});

t.test('node states: down once when Swarm stops hearing from a node, back once when it hears again', async (t) => {
  const node = (id: string, state: string) => ({ id, hostname: `host-${id}`, address: `10.0.0.${id.length}`, state });
  spec.given().when('nodeStates', [node('n2', 'down')]).then(t, [], 'nothing before the installation is a cluster');
  const state = spec.given(initialized);
  state.when('nodeStates', [node('m1', 'ready'), node('n2', 'ready')]).then(t, [], 'all ready: nothing to say');
  state.when('nodeStates', [node('m1', 'ready'), node('n2', 'unknown')]).then(t, [], 'a node joining (no heartbeat yet) is not down');
  const down = state.when('nodeStates', [node('m1', 'ready'), node('n2', 'down')]);
  down.then(t, [{ type: 'ClusterNodeWentDown', data: { nodeId: 'n2', hostname: 'host-n2', address: '10.0.0.2', state: 'down' } }]);
  const after = down.given();
  after.when('nodeStates', [node('n2', 'disconnected')]).then(t, [], 'told once while it stays away');
  const back = after.when('nodeStates', [node('n2', 'ready')]);
  back.then(t, [{ type: 'ClusterNodeCameBack', data: { nodeId: 'n2', hostname: 'host-n2' } }]);
  t.same(back.state.down, []);
  const removed = down.given({ type: 'ClusterNodeRemoved', data: { nodeId: 'n2' } });
  t.same(removed.state.down, [], 'a removed node is no longer down');
  removed.when('nodeStates', [node('n2', 'down')]).then(t, [], 'nor told again');
});
