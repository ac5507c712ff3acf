import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { z } from 'zod';
import { cluster as clusterAggregate } from '../../../commands/cluster/aggregate.js';
import { changeNode, clusterState, initCluster, issueJoinCommand, removeNode } from '../../../commands/cluster/handlers.js';
import { conflict, notFound } from '../../../commands/shared/domain-error.js';
import { findCluster, type ClusterRow } from '../../../projections/cluster-queries.js';
import { listDatabasePlacements } from '../../../projections/service-queries.js';
import { ensureRegistry, trustRegistryAuthority } from '../../cluster/registry.js';
import { REGISTRY_USER } from '../../cluster/cluster-target.js';
import { ClusterImageUnavailable, REGISTRY_IMAGE, requireClusterImage } from '../../cluster/cluster-images.js';
import { findSwarmNode, initOrAdoptSwarm, joinCommand, listSwarmNodes, removeSwarmNode, rotatedJoinToken, SwarmRefused, updateSwarmNode } from '../../cluster/swarm-engine.js';
import { LABEL } from '../../runtime/container-runtime.js';
import type { Slipway } from '../../slipway.js';
import { principalOf, requireInstallation, writerOf } from '../auth.js';
import { HttpError } from '../errors.js';
import { requestContext } from '../request-context.js';
import { parseInput } from '../validation.js';
import { clusterApi, clusterInitBody, joinCommandBody, nodeChangeBody, type cluster } from '../contract/cluster.js';
import { route } from '../contract/endpoint.js';

const WHAT = 'the cluster';

function presentCluster(row: ClusterRow): z.infer<typeof cluster> {
  return {
    swarmId: row.swarm_id,
    managerNodeId: row.manager_node_id,
    advertiseAddress: row.advertise_address,
    registry: row.registry,
    initializedAt: new Date(row.initialized_at).toISOString(),
    joinCommandsIssued: row.join_commands_issued,
    lastJoinCommandAt: row.last_join_command_at === null ? null : new Date(row.last_join_command_at).toISOString(),
  };
}

export function clusterRoutes(router: Router, app: Slipway) {
  // One init at a time: two would each give the registry a password, and only one would be recorded.
  let initializing: Promise<unknown> = Promise.resolve();

  const requireCluster = async () => {
    const row = await findCluster(app.db);
    if (!row) throw conflict('this installation is not a cluster: run `slipway cluster init` (POST /api/cluster) first');
    return row;
  };
  /** Each node with the database services on it: plain containers, which Swarm does not list as tasks. */
  const withDatabases = async <N extends { id: string }>(row: ClusterRow, nodes: N[]) => {
    const databases = await listDatabasePlacements(app.db);
    return nodes.map((node) => ({
      ...node,
      noNewPrivileges: app.nodePrivileges.of(node.id),
      databases: databases
        .filter((d) => (d.node_id ?? row.manager_node_id) === node.id)
        .map((d) => ({ serviceId: d.id, name: d.name, container: d.current_container, status: d.status })),
    }));
  };
  const nodeOf = async (nodeId: string) => {
    const node = await findSwarmNode(await app.managerHost.docker(), nodeId, LABEL.service);
    if (!node) throw notFound('node');
    return node;
  };

  route(router, clusterApi.get, async (ctx) => {
    requireInstallation(principalOf(ctx), WHAT);
    const row = await findCluster(app.db);
    ctx.body = { cluster: row ? presentCluster(row) : null };
  });

  route(router, clusterApi.init, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'making the installation a cluster');
    const body = parseInput(clusterInitBody, ctx.request.body ?? {});
    const cmd = requestContext(app, ctx, principal);
    const run = initializing.then(async () => {
      if ((await clusterState(cmd)).initialized) throw conflict('this installation is already a cluster');
      const docker = await app.managerHost.docker();
      // Before the engine becomes a Swarm: an image it cannot get leaves nothing half made.
      const registryImage = { ...REGISTRY_IMAGE, image: app.config.cluster.registryImage };
      await requireClusterImage(docker, registryImage, app.config.deploy.timeouts.pullMs).catch((error: unknown) => {
        throw error instanceof ClusterImageUnavailable ? new HttpError(502, 'image_unavailable', error.message) : error;
      });
      const identity = await initOrAdoptSwarm(docker, body.advertiseAddress ?? null).catch((error: unknown) => {
        throw error instanceof SwarmRefused ? new HttpError(409, 'swarm_refused', error.message) : error;
      });
      const registry = `${identity.advertiseAddress}:${app.config.cluster.registryPort}`;
      const access = { address: registry, username: REGISTRY_USER, password: randomBytes(24).toString('base64url') };
      const authority = await app.registryAuthority();
      await ensureRegistry(docker, { image: app.config.cluster.registryImage, advertiseAddress: identity.advertiseAddress, port: app.config.cluster.registryPort, authority, access });
      // The manager pushes every release: its engine must trust the registry like any other node.
      trustRegistryAuthority(registry, authority.certPem, app.config.cluster.certsDir);
      return initCluster(cmd, { ...identity, registry, registryPassword: access.password });
    });
    initializing = run.catch(() => undefined);
    const { position } = await run;
    await app.settle(position);
    ctx.body = { cluster: presentCluster((await findCluster(app.db))!) };
  });

  route(router, clusterApi.listNodes, async (ctx) => {
    requireInstallation(principalOf(ctx), WHAT);
    const row = await requireCluster();
    ctx.body = { nodes: await withDatabases(row, await listSwarmNodes(await app.managerHost.docker(), LABEL.service)) };
  });

  route(router, clusterApi.joinCommand, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'adding a node');
    const { role } = parseInput(joinCommandBody, ctx.request.body ?? {});
    const row = await requireCluster();
    const token = await rotatedJoinToken(await app.managerHost.docker(), role);
    const { position } = await issueJoinCommand(requestContext(app, ctx, principal), role);
    await app.settle(position);
    const caPem = (await app.registryAuthority()).certPem;
    ctx.body = {
      role,
      joinCommand: joinCommand(token, row.advertise_address, row.registry, caPem),
      token,
      managerAddress: row.advertise_address,
      registry: row.registry,
      registryCaPem: caPem,
    };
  });

  route(router, clusterApi.changeNode, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'changing a node');
    const change = parseInput(nodeChangeBody, ctx.request.body ?? {});
    const row = await requireCluster();
    const node = await nodeOf(ctx.params.nodeId!);
    const cmd = requestContext(app, ctx, principal);
    const current = { availability: node.availability, labels: node.labels };
    // Decided before Swarm is told, so a refused change never reaches it; recorded once Swarm took it.
    if (clusterAggregate.decide.changeNode(await clusterState(cmd), node.id, current, change).length > 0) {
      await updateSwarmNode(await app.managerHost.docker(), node.id, { availability: change.availability ?? current.availability, labels: change.labels ?? current.labels });
    }
    const { position } = await changeNode(cmd, node.id, current, change);
    await app.settle(position);
    const [changed] = await withDatabases(row, [await nodeOf(node.id)]);
    ctx.body = { node: changed! };
  });

  route(router, clusterApi.removeNode, async (ctx) => {
    const principal = writerOf(ctx);
    requireInstallation(principal, 'removing a node');
    await requireCluster();
    const node = await nodeOf(ctx.params.nodeId!);
    const cmd = requestContext(app, ctx, principal);
    const live = { availability: node.availability, down: node.state === 'down' };
    // Their data is on the node: a node is removed only once none is left there.
    const held = (await listDatabasePlacements(app.db)).filter((d) => d.node_id === node.id);
    if (held.length > 0) throw conflict(`database services are on ${node.hostname} (${held.map((d) => d.name).join(', ')}): move them to another node (POST /api/services/:id/move) or delete them first`);
    clusterAggregate.decide.removeNode(await clusterState(cmd), node.id, live);
    await removeSwarmNode(await app.managerHost.docker(), node.id);
    const { position } = await removeNode(cmd, node.id, live);
    await app.settle(position);
    ctx.body = { ok: true };
  });
}
