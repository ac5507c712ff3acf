import type { SqlExecutor } from '../src/db/sql-client.js';

export interface ClusterRow {
  swarm_id: string;
  manager_node_id: string;
  advertise_address: string;
  registry: string;
  initialized_at: Date | string;
  join_commands_issued: number;
  last_join_command_at: Date | string | null;
}

export interface ClusterNodeRow {
  node_id: string;
  availability: string;
  labels: Record<string, string>;
  changed_at: Date | string;
}

export async function findCluster(db: SqlExecutor): Promise<ClusterRow | null> {
  const { rows } = await db.query<ClusterRow>('select * from rm_cluster where id = 1');
  return rows[0] ?? null;
}

/** When and to what each node was last changed through Slipway. */
export async function listClusterNodeChanges(db: SqlExecutor): Promise<ClusterNodeRow[]> {
  return (await db.query<ClusterNodeRow>('select * from rm_cluster_nodes order by node_id')).rows;
}
