import type Docker from 'dockerode';
import type { SqlExecutor } from '../db/sql-client.js';
import { LABEL } from '../runtime/container-runtime.js';
import { listSwarmNodes } from './swarm-engine.js';

export interface ClusterHealth {
  ok: boolean;
  detail: string;
  nodesDown: { id: string; hostname: string; address: string; state: string; availability: string }[];
  servicesBelowReplicas: { serviceId: string; name: string; running: number; replicas: number }[];
}

/** Nodes Swarm does not hear from, and Swarm services with fewer running tasks than their replicas. */
export async function clusterHealth(db: SqlExecutor, docker: Docker): Promise<ClusterHealth> {
  const nodes = await listSwarmNodes(docker, LABEL.service);
  const { rows } = await db.query<{ id: string; name: string; replicas: number | null }>(
    `select id, name, replicas from rm_services where current_container like 'swarm:%' and status <> 'stopped' order by name`,
  );
  const running = new Map<string, number>();
  for (const task of nodes.flatMap((n) => (n.state === 'ready' ? n.tasks : []))) {
    if (task.serviceId && task.state === 'running') running.set(task.serviceId, (running.get(task.serviceId) ?? 0) + 1);
  }
  const nodesDown = nodes.filter((n) => n.state !== 'ready').map(({ id, hostname, address, state, availability }) => ({ id, hostname, address, state, availability }));
  const servicesBelowReplicas = rows
    .map((r) => ({ serviceId: r.id, name: r.name, running: running.get(r.id) ?? 0, replicas: r.replicas ?? 1 }))
    .filter((s) => s.running < s.replicas);
  const problems = [
    ...nodesDown.map((n) => `node ${n.hostname} (${n.address}) is ${n.state}`),
    ...servicesBelowReplicas.map((s) => `${s.name} runs ${s.running} of ${s.replicas} tasks`),
  ];
  return { ok: problems.length === 0, detail: problems.length ? problems.join('; ') : `${nodes.length} node${nodes.length === 1 ? '' : 's'} ready, every service at its replica count`, nodesDown, servicesBelowReplicas };
}
