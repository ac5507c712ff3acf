import { z } from 'zod';
import { NODE_AVAILABILITY, NODE_ROLES } from '../../../commands/cluster/events.js';
import { nodeLabels } from '../../../commands/cluster/node-labels.js';
import { nullableTimestamp, timestamp } from './common.js';
import { endpoint } from './endpoint.js';

const ipOrName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9][A-Za-z0-9.:-]*$/, 'an IP address or a host name');

export const cluster = z
  .object({
    swarmId: z.string(),
    managerNodeId: z.string(),
    advertiseAddress: z.string().meta({ description: 'Where other nodes reach the manager (port 2377).' }),
    registry: z.string().meta({ description: 'The installation’s registry (`host:port`) every node pulls releases from.' }),
    initializedAt: timestamp,
    joinCommandsIssued: z.number().int(),
    lastJoinCommandAt: nullableTimestamp,
  })
  .meta({ id: 'Cluster' });

const task = z.object({
  id: z.string(),
  serviceName: z.string(),
  serviceId: z.string().nullable().meta({ description: 'The Slipway service the task belongs to; null for a service Slipway does not run.' }),
  slot: z.number().int().nullable(),
  state: z.string(),
});

export const clusterNode = z
  .object({
    id: z.string(),
    hostname: z.string(),
    role: z.enum(NODE_ROLES),
    leader: z.boolean(),
    availability: z.enum(NODE_AVAILABILITY),
    state: z.string().meta({ description: '`ready`, `down`, `disconnected` or `unknown`, as Swarm reports it.' }),
    address: z.string(),
    cpus: z.number(),
    memoryBytes: z.number().int(),
    engineVersion: z.string(),
    labels: z.record(z.string(), z.string()),
    tasks: z.array(task),
    noNewPrivileges: z
      .boolean()
      .nullable()
      .meta({
        description:
          'Whether the node’s Docker daemon starts every container with no-new-privileges (daemon.json `"no-new-privileges": true`), as last read from its agent task; null while not known. Before Docker 27 (API 1.46) a service spec cannot ask for it: on such engines only this default gives Swarm tasks what app containers on one server have.',
      }),
    databases: z
      .array(z.object({ serviceId: z.string(), name: z.string(), container: z.string().nullable(), status: z.string() }))
      .meta({
        description:
          'Database services on this node: plain containers pinned to it (`nodeId`), not Swarm tasks. Those without a node are on the manager, where Slipway runs.',
      }),
  })
  .meta({ id: 'ClusterNode' });

export const clusterInitBody = z.strictObject({
  advertiseAddress: ipOrName.optional().meta({ description: 'The manager’s address other nodes dial; needed when the engine has several.' }),
});

export const joinCommandBody = z.strictObject({ role: z.enum(NODE_ROLES).default('worker') });

export const nodeChangeBody = z
  .strictObject({ availability: z.enum(NODE_AVAILABILITY).optional(), labels: nodeLabels.optional() })
  .refine((b) => b.availability !== undefined || b.labels !== undefined, 'give availability, labels or both');

const nodePath = '/api/cluster/nodes/:nodeId';

export const clusterApi = {
  get: endpoint({
    method: 'get',
    path: '/api/cluster',
    operationId: 'getCluster',
    tag: 'Cluster',
    summary: 'Whether the installation is a Swarm cluster, and its manager and registry',
    access: 'read',
    allProjects: true,
    response: z.object({ cluster: cluster.nullable() }),
  }),
  init: endpoint({
    method: 'post',
    path: '/api/cluster',
    operationId: 'initCluster',
    tag: 'Cluster',
    summary: 'Make the installation a Swarm manager, with a private registry every node pulls releases from',
    description:
      'Adopts the Swarm the engine already manages. The registry runs on the manager with a certificate from the installation’s CA and its own password. 409 when the installation is already a cluster. 502 `image_unavailable` when the manager’s engine has not the registry’s image (`SLIPWAY_CLUSTER_REGISTRY_IMAGE`) and cannot pull it; nothing is changed then.',
    access: 'write',
    allProjects: true,
    body: clusterInitBody,
    response: z.object({ cluster }),
    errors: [409, 502],
  }),
  listNodes: endpoint({
    method: 'get',
    path: '/api/cluster/nodes',
    operationId: 'listClusterNodes',
    tag: 'Cluster',
    summary: 'The nodes, as Swarm sees them now, with the tasks that run on each',
    access: 'read',
    allProjects: true,
    response: z.object({ nodes: z.array(clusterNode) }),
    errors: [409],
  }),
  joinCommand: endpoint({
    method: 'post',
    path: '/api/cluster/nodes',
    operationId: 'issueClusterJoinCommand',
    tag: 'Cluster',
    summary: 'The command that joins a new node (shown once: issuing another stops this one from working)',
    description:
      'Run `joinCommand` as root on the new server. It trusts the registry’s CA (/etc/docker/certs.d), then runs `docker swarm join`. Between the servers, TCP 2377 and 7946, UDP 7946 and 4789 must pass, and the registry’s port must reach the manager.',
    access: 'write',
    allProjects: true,
    body: joinCommandBody,
    response: z.object({
      role: z.enum(NODE_ROLES),
      joinCommand: z.string(),
      token: z.string(),
      managerAddress: z.string(),
      registry: z.string(),
      registryCaPem: z.string(),
    }),
    errors: [409],
  }),
  changeNode: endpoint({
    method: 'patch',
    path: nodePath,
    operationId: 'changeClusterNode',
    tag: 'Cluster',
    summary: 'Pause or drain a node (its tasks move), make it active again, or set its labels (they replace the node’s labels)',
    access: 'write',
    allProjects: true,
    body: nodeChangeBody,
    response: z.object({ node: clusterNode }),
    errors: [404, 409],
  }),
  removeNode: endpoint({
    method: 'delete',
    path: nodePath,
    operationId: 'removeClusterNode',
    tag: 'Cluster',
    summary: 'Remove a drained node that has left the Swarm',
    description: '409 while the node is not drained and down, or while database services are on it (move them first: their data is there).',
    access: 'write',
    allProjects: true,
    response: z.object({ ok: z.literal(true) }),
    errors: [404, 409],
  }),
};
