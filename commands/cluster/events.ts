import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { nodeLabels } from './node-labels.js';

export const NODE_AVAILABILITY = ['active', 'pause', 'drain'] as const;
export type NodeAvailability = (typeof NODE_AVAILABILITY)[number];
export const NODE_ROLES = ['worker', 'manager'] as const;
export type NodeRole = (typeof NODE_ROLES)[number];

/** A Swarm node's id, as `GET /api/cluster/nodes` lists it. */
export const swarmNodeId = z.string().regex(/^[a-z0-9]{1,64}$/, 'a node id as GET /api/cluster/nodes lists it');

/**
 * The installation as a Swarm (`cluster-installation`). Swarm itself holds the live state (which nodes are up,
 * which tasks run where); the log holds what people decided: that the installation is a cluster, each join command
 * handed out (never its token), and each node's availability and labels.
 */
export const clusterEvents = {
  ClusterInitialized: z.object({
    swarmId: z.string(),
    managerNodeId: z.string(),
    advertiseAddress: z.string(),
    /** The installation's registry on the manager (`host:port`) that every node pulls releases from. */
    registry: z.string(),
    /** Sealed with the installation's key: the registry's password, per installation. */
    registryPassword: z.string(),
  }),
  /** Issuing rotates Swarm's join token: only the command shown last can join a node. */
  ClusterJoinCommandIssued: z.object({ role: z.enum(NODE_ROLES) }),
  ClusterNodeChanged: z.object({ nodeId: z.string(), availability: z.enum(NODE_AVAILABILITY), labels: nodeLabels }),
  ClusterNodeRemoved: z.object({ nodeId: z.string() }),
  /** Swarm stopped hearing from a node (its machine, engine or network is gone), or heard again. */
  ClusterNodeWentDown: z.object({ nodeId: z.string(), hostname: z.string(), address: z.string(), state: z.string() }),
  ClusterNodeCameBack: z.object({ nodeId: z.string(), hostname: z.string() }),
};
export type ClusterEvent = EventsOf<typeof clusterEvents>;
export const parseClusterEvent = eventParser(clusterEvents);
