import { parseClusterEvent } from '../commands/cluster/events.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { BatchWriter } from './batch-writer.js';
import { eachEventOf, type Projector } from './projector.js';
import { sql } from './sql-text.js';

// Swarm holds the live state of nodes and tasks; the read side keeps what the log decided about the cluster.
const clusterEvents = eachEventOf('cluster', parseClusterEvent, (event, _id, at, out) => {
  switch (event.type) {
    case 'ClusterInitialized': {
      const d = event.data;
      out.upsert({
        table: 'rm_cluster',
        row: { id: 1, swarm_id: d.swarmId, manager_node_id: d.managerNodeId, advertise_address: d.advertiseAddress, registry: d.registry, initialized_at: at, join_commands_issued: 0, last_join_command_at: null },
        key: ['id'],
        update: [],
      });
      return;
    }
    case 'ClusterJoinCommandIssued':
      out.sql(sql`update rm_cluster set join_commands_issued = join_commands_issued + 1, last_join_command_at = ${at} where id = 1`);
      return;
    case 'ClusterNodeChanged': {
      const d = event.data;
      out.upsert({
        table: 'rm_cluster_nodes',
        row: { node_id: d.nodeId, availability: d.availability, labels: d.labels, changed_at: at },
        key: ['node_id'],
        update: ['availability', 'labels', 'changed_at'],
      });
      return;
    }
    case 'ClusterNodeRemoved':
      out.deleteOwnedBy('rm_cluster_nodes', 'node_id', event.data.nodeId);
      return;
  }
});

export const clusterProjector: Projector = {
  name: 'cluster',
  version: 1,
  tables: ['rm_cluster', 'rm_cluster_nodes'],
  ddl: `
create table if not exists rm_cluster (
  id integer primary key,
  swarm_id text not null,
  manager_node_id text not null,
  advertise_address text not null,
  registry text not null,
  initialized_at timestamptz not null,
  join_commands_issued integer not null,
  last_join_command_at timestamptz
);
create table if not exists rm_cluster_nodes (
  node_id text primary key,
  availability text not null,
  labels jsonb not null,
  changed_at timestamptz not null
);`,
  indexes: '',
  applyBatch(events: readonly RecordedEvent[], out: BatchWriter) {
    clusterEvents(events, out);
  },
};
