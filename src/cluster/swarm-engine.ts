import type Docker from 'dockerode';
import type { NodeAvailability, NodeRole } from '../../commands/cluster/events.js';

/** Swarm's port for managers; the others (7946 tcp/udp, 4789 udp) need no address of their own. */
export const SWARM_MANAGER_PORT = 2377;

/** The engine's answer when it refused what Slipway asked (bad address, a worker of another Swarm…). */
export class SwarmRefused extends Error {}

export interface SwarmIdentity {
  swarmId: string;
  managerNodeId: string;
  advertiseAddress: string;
}

interface EngineError {
  statusCode?: number;
  json?: { message?: string } | null;
  message: string;
}

const engineMessage = (error: unknown) => {
  const e = error as EngineError;
  return (e.json?.message ?? e.message).trim();
};

/**
 * Makes the engine a Swarm manager, or adopts the Swarm it already manages (an init cut short before its event
 * was written, or a Swarm made by hand). A worker of another Swarm is refused: it cannot manage services.
 */
export async function initOrAdoptSwarm(docker: Docker, advertiseAddress: string | null): Promise<SwarmIdentity> {
  const info = await docker.info();
  const state: string = info.Swarm?.LocalNodeState ?? 'inactive';
  if (state === 'active') {
    if (!info.Swarm.ControlAvailable) throw new SwarmRefused('the Docker engine is a worker of another Swarm: run `docker swarm leave` on it, or point Slipway at a manager');
    return adopted(docker, info);
  }
  if (state !== 'inactive') throw new SwarmRefused(`the Docker engine's Swarm state is "${state}": wait until it settles, or run \`docker swarm leave --force\``);
  const address = advertiseAddress ?? '';
  try {
    await docker.swarmInit({ ListenAddr: address ? `${address}:${SWARM_MANAGER_PORT}` : `0.0.0.0:${SWARM_MANAGER_PORT}`, AdvertiseAddr: address });
  } catch (error) {
    // "could not choose an IP address to advertise since this system has multiple addresses…"
    if ((error as EngineError).statusCode === 400) throw new SwarmRefused(engineMessage(error));
    throw error;
  }
  return adopted(docker, await docker.info());
}

async function adopted(docker: Docker, info: { Swarm: { NodeID: string; NodeAddr: string } }): Promise<SwarmIdentity> {
  const swarm = (await docker.swarmInspect()) as { ID: string };
  return { swarmId: swarm.ID, managerNodeId: info.Swarm.NodeID, advertiseAddress: info.Swarm.NodeAddr };
}

/** A fresh join token for `role`: the one handed out before stops working, so only the last command shown joins. */
export async function rotatedJoinToken(docker: Docker, role: NodeRole): Promise<string> {
  const swarm = (await docker.swarmInspect()) as { Version: { Index: number }; Spec: Record<string, unknown> };
  const rotate = role === 'manager' ? { rotateManagerToken: true } : { rotateWorkerToken: true };
  await docker.swarmUpdate({ _query: { version: swarm.Version.Index, ...rotate }, _body: swarm.Spec });
  const after = (await docker.swarmInspect()) as { JoinTokens: { Worker: string; Manager: string } };
  return role === 'manager' ? after.JoinTokens.Manager : after.JoinTokens.Worker;
}

export interface SwarmTask {
  id: string;
  serviceName: string;
  /** Slipway's service id, from the Swarm service's labels; null for services Slipway does not run. */
  serviceId: string | null;
  slot: number | null;
  state: string;
}

export interface SwarmNodeView {
  id: string;
  hostname: string;
  role: NodeRole;
  leader: boolean;
  availability: NodeAvailability;
  /** `ready`, `down`, `disconnected` or `unknown`, as Swarm reports it. */
  state: string;
  address: string;
  cpus: number;
  memoryBytes: number;
  engineVersion: string;
  labels: Record<string, string>;
  tasks: SwarmTask[];
}

/** Where other nodes reach a node: a manager's Status.Addr can be 0.0.0.0, its manager address is the one they dial. */
export const nodeAddressOf = (node: Pick<NodeInfo, 'Status' | 'ManagerStatus'>) => (node.ManagerStatus?.Addr?.replace(/:\d+$/, '') ?? node.Status?.Addr) || '';

interface NodeInfo {
  ID: string;
  Version: { Index: number };
  Spec: { Role: NodeRole; Availability: NodeAvailability; Labels?: Record<string, string> } & Record<string, unknown>;
  Description?: { Hostname?: string; Resources?: { NanoCPUs?: number; MemoryBytes?: number }; Engine?: { EngineVersion?: string } };
  Status?: { State?: string; Addr?: string };
  ManagerStatus?: { Leader?: boolean; Addr?: string };
}

interface TaskInfo {
  ID: string;
  ServiceID: string;
  NodeID?: string;
  Slot?: number;
  Status?: { State?: string };
}

interface ServiceInfo {
  ID: string;
  Spec: { Name: string; Labels?: Record<string, string> };
}

/** Every node with the tasks that should run on it now, as Swarm sees them. */
export async function listSwarmNodes(docker: Docker, serviceLabel: string): Promise<SwarmNodeView[]> {
  const [nodes, tasks, services] = (await Promise.all([
    docker.listNodes(),
    docker.listTasks({ filters: { 'desired-state': ['running'] } }),
    docker.listServices(),
  ])) as unknown as [NodeInfo[], TaskInfo[], ServiceInfo[]];
  const serviceById = new Map(services.map((s) => [s.ID, s]));
  return nodes
    .map((node) => ({
      id: node.ID,
      hostname: node.Description?.Hostname ?? '',
      role: node.Spec.Role,
      leader: Boolean(node.ManagerStatus?.Leader),
      availability: node.Spec.Availability,
      state: node.Status?.State ?? 'unknown',
      address: nodeAddressOf(node),
      cpus: (node.Description?.Resources?.NanoCPUs ?? 0) / 1e9,
      memoryBytes: node.Description?.Resources?.MemoryBytes ?? 0,
      engineVersion: node.Description?.Engine?.EngineVersion ?? '',
      labels: node.Spec.Labels ?? {},
      tasks: tasks
        .filter((t) => t.NodeID === node.ID)
        .map((t) => {
          const service = serviceById.get(t.ServiceID);
          return { id: t.ID, serviceName: service?.Spec.Name ?? t.ServiceID, serviceId: service?.Spec.Labels?.[serviceLabel] ?? null, slot: t.Slot ?? null, state: t.Status?.State ?? 'unknown' };
        })
        .sort((a, b) => a.serviceName.localeCompare(b.serviceName) || (a.slot ?? 0) - (b.slot ?? 0)),
    }))
    .sort((a, b) => Number(b.role === 'manager') - Number(a.role === 'manager') || a.hostname.localeCompare(b.hostname));
}

/** One node as Swarm reports it, or null when Swarm has no such node. */
export async function findSwarmNode(docker: Docker, nodeId: string, serviceLabel: string): Promise<SwarmNodeView | null> {
  return (await listSwarmNodes(docker, serviceLabel)).find((n) => n.id === nodeId) ?? null;
}

/** Sets availability and labels (the labels replace the node's own). */
export async function updateSwarmNode(docker: Docker, nodeId: string, change: { availability: NodeAvailability; labels: Record<string, string> }) {
  const node = docker.getNode(nodeId);
  const info = (await node.inspect()) as NodeInfo;
  await node.update({ _query: { version: info.Version.Index }, _body: { ...info.Spec, Availability: change.availability, Labels: change.labels } });
}

export async function removeSwarmNode(docker: Docker, nodeId: string) {
  await docker.getNode(nodeId).remove({ force: false });
}

/**
 * What a new node's administrator runs there, as root: trust the registry's CA (Docker reads
 * /etc/docker/certs.d/<registry>/ca.crt for pulls), then join. The CA travels as base64: one line, no quoting.
 */
export function joinCommand(token: string, managerAddress: string, registry: string, caPem: string): string {
  const dir = `/etc/docker/certs.d/${registry}`;
  const ca = Buffer.from(caPem).toString('base64');
  return `mkdir -p ${dir} && echo ${ca} | base64 -d > ${dir}/ca.crt && docker swarm join --token ${token} ${managerAddress}:${SWARM_MANAGER_PORT}`;
}
