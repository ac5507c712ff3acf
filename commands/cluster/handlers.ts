import type { CommandContext } from '../shared/command-context.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { CLUSTER_ID, cluster, type ClusterNodeIntent, type ClusterState } from './aggregate.js';
import type { ClusterEvent, NodeAvailability, NodeRole } from './events.js';

type Initialized = Extract<ClusterEvent, { type: 'ClusterInitialized' }>['data'];

const CLUSTER_KEY = `cluster-${CLUSTER_ID}`;

export const clusterState = async (ctx: CommandContext): Promise<ClusterState> => (await loadAggregate(ctx, cluster, CLUSTER_ID)).state;

/** `registryPassword` in clear: it is sealed here, before it reaches the log. */
export async function initCluster(ctx: CommandContext, init: Initialized) {
  const sealed = { ...init, registryPassword: await ctx.keyring.encrypt(CLUSTER_KEY, init.registryPassword) };
  return execute(ctx, cluster, CLUSTER_ID, (s) => cluster.decide.init(s, sealed));
}

/** The registry's password, opened; null before the installation is a cluster (or when its key was lost). */
export async function registryPassword(ctx: CommandContext): Promise<string | null> {
  const [first] = await ctx.store.readStream(CLUSTER_KEY, { maxCount: 1 });
  const event = first ? cluster.parse(first) : null;
  if (event?.type !== 'ClusterInitialized') return null;
  return ctx.keyring.decrypt(event.data.registryPassword);
}

export const issueJoinCommand = (ctx: CommandContext, role: NodeRole) => execute(ctx, cluster, CLUSTER_ID, (s) => cluster.decide.issueJoinCommand(s, role));

export const changeNode = (ctx: CommandContext, nodeId: string, current: ClusterNodeIntent, change: Partial<ClusterNodeIntent>) =>
  execute(ctx, cluster, CLUSTER_ID, (s) => cluster.decide.changeNode(s, nodeId, current, change));

export const removeNode = (ctx: CommandContext, nodeId: string, live: { availability: NodeAvailability; down: boolean } | null) =>
  execute(ctx, cluster, CLUSTER_ID, (s) => cluster.decide.removeNode(s, nodeId, live));

export const recordNodeStates = (ctx: CommandContext, live: Parameters<typeof cluster.decide.nodeStates>[1]) => execute(ctx, cluster, CLUSTER_ID, (s) => cluster.decide.nodeStates(s, live));
