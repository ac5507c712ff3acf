import { setTimeout as sleep } from 'node:timers/promises';
import { deploymentSteps } from '../../../../commands/deployment/handlers.js';
import type { Engine } from '../../../../commands/service/fields.js';
import { releaseService } from '../../../../commands/service/handlers.js';
import { BrowserError } from '../../../engines/browser.js';
import { createRemoteBrowser } from '../../../engines/remote-browser.js';
import { endpointOf, enginePlan, type ServerTls } from '../../../engines/engine-plans.js';
import { LABEL, type ContainerSpec, type NetworkAddresses } from '../../../runtime/container-runtime.js';
import { databaseProfileOf } from '../../../runtime/container-privileges.js';
import type { DeploymentLog } from '../toolkit/deployment-log.js';
import { recorded } from '../../recorded.js';
import { containerEnd, resourcesOfRun, type RunResources } from '../toolkit/service-resources.js';
import { stoppedOnRequest } from '../toolkit/service-stop.js';
import { gateCheckOf, gateOf, passGate, untilReadyDelay } from './readiness.js';
import { containerNameOf } from '../toolkit/run-names.js';
import { DeployFailure, step } from '../toolkit/run-step.js';
import { followStartup, STARTUP_DRAIN_MS } from '../toolkit/startup-output.js';
import { message } from '../../error-message.js';
import type { Prepared } from '../toolkit/prepared.js';
import type { RunDeps } from '../toolkit/run-deps.js';
import { planFromRelease, pruneReleases, releaseDraftOf, wentLive, type RunPlan } from './release-run.js';
import { placeOf, provideImage, type DatabasePlace } from './database-place.js';
import { copyForMove, type MoveCopy } from './database-move.js';
import type { DeploymentRequest } from '../../../../commands/deployment/aggregate.js';

/** The named volume that holds a database service's data across deployments. */
export const volumeOf = (serviceId: string) => `slipway-data-${serviceId}`;

/** How often, at most, the engine is asked whether a starting database's container still runs. */
const ENGINE_EVERY_MS = 100;

/**
 * Waits until the engine answers a real query through Slipway's own connection, not just until its port
 * opens (the proxy in front of a published port accepts before the engine listens, and the official images
 * start a private server to initialise before the real one). A container that exits ends the wait at once.
 */
async function waitUntilAnswering(
  deps: RunDeps,
  engine: Engine,
  name: string,
  endpoint: ReturnType<typeof endpointOf>,
  resources: RunResources,
  log: DeploymentLog,
  signal: AbortSignal,
) {
  const browser = await createRemoteBrowser(engine, endpoint);
  const started = Date.now();
  let last = '';
  let inspected = 0;
  try {
    for (;;) {
      signal.throwIfAborted();
      if (Date.now() - inspected >= ENGINE_EVERY_MS) {
        inspected = Date.now();
        const state = await deps.runtime.inspect(name, null);
        if (!state) throw new DeployFailure('the container disappeared while starting');
        if (!state.running || state.restarts > 0) {
          throw new DeployFailure(`the database ${containerEnd(state, resources)} before it answered; see the log above`);
        }
      }
      try {
        await browser.ping();
        return;
      } catch (error) {
        const now = error instanceof BrowserError ? error.message : message(error);
        if (now !== last && !(error instanceof BrowserError && error.kind === 'unavailable')) log.system(`Not answering yet: ${now}`);
        last = now;
      }
      await sleep(untilReadyDelay(Date.now() - started), undefined, { signal }).catch(() => undefined);
    }
  } finally {
    await browser.close().catch(() => undefined);
  }
}

/**
 * A database deployment: the engine's official image on the service's named volume. Two containers cannot
 * share a data directory, so the previous one is stopped first (a short outage, unlike app deployments);
 * if the new one does not answer, it is removed and the previous one starts again on the same data.
 *
 * A move (cluster mode) runs the current release on another node: the database stops, its data is dumped by
 * a container without network on the same volume (so no write is lost), the new container starts on an empty
 * volume there and the dump is restored into it before the release is recorded with the node. A failure
 * removes the new container and volume and starts the old container again; a success removes the old
 * container and volume.
 */
export async function deployDatabase(deps: RunDeps, id: string, prepared: Prepared, log: DeploymentLog, signal: AbortSignal, request: DeploymentRequest): Promise<void> {
  const { row } = prepared;
  const was = await placeOf(deps, row.project_id, row.node_id, signal);
  const kept = request.kind === 'deploy' ? null : await planFromRelease(was.deps, id, request, prepared, log);
  const moveTo = request.kind === 'move' ? { nodeId: request.toNodeId ?? null } : null;
  const at = moveTo ? await placeOf(deps, row.project_id, moveTo.nodeId, signal) : was;
  const p = kept ? { ...prepared, env: kept.env } : prepared;
  const engine = row.database_engine as Engine;
  const settings = deps.settings.databases;
  const image = kept?.image ?? (await deps.images()).databases[engine];
  // Issued while the image is looked at: neither needs the other.
  const issuing: Promise<ServerTls | null> = deps.databaseTls && (engine === 'postgres' || engine === 'timeseries') ? deps.databaseTls(row) : Promise.resolve(null);
  issuing.catch(() => undefined);
  if (!kept) {
    await provideImage(at, deps.runtime, image, log, signal);
    const imageId = (await at.runtime.imageInfo(image))?.id ?? null;
    await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentImageBuilt', data: { imageTag: image, buildMethod: 'image', imageId, digest: null } });
  } else if (moveTo) {
    await provideImage(at, was.runtime, image, log, signal);
  }

  const tls = await issuing;
  if (tls) log.system('TLS on: server certificate signed by this installation\'s CA (GET …/database/tls/ca)');
  const labels = { [LABEL.project]: row.project_id, [LABEL.service]: row.id };
  const previous = row.current_container;
  const name = containerNameOf(row.slug, id);
  const endpointAt = async (place: DatabasePlace) => endpointOf(engine, p.env, await place.port(row.host_port), tls?.caPem ?? null);
  const endpoint = await endpointAt(at);
  const resources = await resourcesOfRun(kept ? kept.resources : row.resources, deps.defaultResources);
  const ranAs = kept ? { ...row, health_check: kept.healthCheck } : row;
  const where = at.nodeId ? ` on node ${at.nodeId}` : '';
  const containerOf = (container: string, network: string, addresses: readonly NetworkAddresses[]): ContainerSpec => {
    const plan = enginePlan(engine, image, p.env, { logicalReplication: row.postgres_logical_replication_enabled, tls, network: addresses });
    return {
      name: container,
      image,
      env: plan.env,
      labels: { ...labels, [LABEL.deployment]: id },
      network,
      aliases: [row.slug],
      internalPort: plan.port,
      publish: true,
      // Published on all interfaces only when public; Slipway itself always connects through loopback.
      binding: { ip: row.database_public_enabled ? '0.0.0.0' : '127.0.0.1', port: row.host_port },
      command: plan.command,
      volumes: [{ name: volumeOf(row.id), target: plan.dataDir, labels }],
      files: plan.files,
      privileges: databaseProfileOf(engine),
      limits: resources.limits,
    };
  };
  let created = false;
  let copy: MoveCopy | null = null;
  // An abort does not stop the engine's own stop: the previous container is started again only once it is down.
  let stopping: Promise<void> | null = null;
  try {
    if (previous) {
      log.system(`Stopping ${previous}: ${moveTo ? 'no write may reach it once its data is being copied' : 'a database runs one container on its data'}`);
      stopping = was.runtime.stop(previous, deps.settings.timeouts.stopGraceSeconds);
      await step('stopping the previous container', deps.settings.timeouts.stopGraceSeconds * 1000 + 30_000, signal, () => stopping!);
    }
    if (moveTo && previous) {
      const reader = { ...containerOf(`${name}-copy`, 'none', []), network: 'none' as const, aliases: [], internalPort: null, publish: false, binding: undefined };
      copy = await copyForMove(deps, was.runtime, reader, { engine, env: p.env }, id, log, signal);
    }
    await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentContainerStarted', data: { containerName: name } });
    await step('creating the container', deps.settings.timeouts.startMs, signal, async () => {
      const addresses = await at.prepareNetwork();
      // A volume the service left on this node when it moved away earlier: its data is not the current data.
      if (moveTo) await at.runtime.removeVolumes(labels);
      created = true;
      return at.runtime.run(containerOf(name, at.network, addresses));
    });
    log.system(`Started ${name} from ${image}${where} on port ${row.host_port}${row.database_public_enabled ? ' (public)' : ' (this host only)'}; waiting for it to answer a query`);
    const stopFollowing = followStartup(at.deps, name, log);
    let ready = false;
    try {
      await step('starting the database', settings.startMs + 5_000, signal, (s) =>
        gateCheckOf(ranAs)
          ? passGate({ ...gateOf(at.deps, ranAs, name, log, resources), startMs: settings.startMs }, s)
          : waitUntilAnswering(at.deps, engine, name, endpoint, resources, log, s),
      );
      ready = true;
    } finally {
      await stopFollowing(ready || signal.aborted ? 0 : STARTUP_DRAIN_MS);
    }
    await step('setting the restart policy', 10_000, signal, () => at.runtime.keepRunning(name));
    if (copy) await copy.restoreInto(at.runtime, name, signal);
    signal.throwIfAborted();
    await releaseService(deps.cmd, row.id, { deploymentId: id, containerName: name, upstreamPort: row.host_port, buildMethod: null }, moveTo ?? undefined);
  } catch (error) {
    if (created) {
      await at.runtime.remove(name, 1).catch(() => undefined);
      if (moveTo) await at.runtime.removeVolumes(labels).catch(() => undefined);
    }
    // A database stopped on request stays stopped.
    if (previous && !stoppedOnRequest(row)) {
      await stopping?.catch(() => undefined);
      try {
        await was.runtime.start(previous);
        const answering = await endpointAt(was);
        // Bounded by its own deadline: the deployment's signal may be the abort that brought us here.
        await step('starting the previous container again', settings.startMs, new AbortController().signal, (s) =>
          waitUntilAnswering(was.deps, engine, previous, answering, resources, log, s),
        );
        log.system(`Started ${previous} again on the same data; it answers`);
      } catch (e) {
        log.system(`Could not start ${previous} again: ${message(e)}`);
      }
    }
    throw error;
  } finally {
    copy?.remove();
  }
  if (moveTo) {
    // Before the move ends: once it has, nothing of the service is left where it was.
    if (previous) await was.runtime.remove(previous, 1).catch((e: unknown) => log.system(`Could not remove ${previous}: ${message(e)}`));
    const gone = await was.runtime.removeVolumes(labels).catch((e: unknown) => {
      log.system(`Could not remove the old volume: ${message(e)}`);
      return [];
    });
    log.system(`Moved${where}; removed the old container${gone.length ? ` and volume ${gone.join(', ')}` : ''}${was.nodeId ? ` from node ${was.nodeId}` : ''}`);
  }
  log.system(`Deployment succeeded: ${engine} answers${where} on port ${row.host_port}`);
  await log.flush();
  const plan: RunPlan = kept ?? {
    image,
    imageRef: image,
    env: p.env,
    internalPort: row.internal_port,
    web: false,
    resources: row.resources,
    healthCheck: row.health_check,
    buildMethod: 'image',
    commitSha: null,
    commitMessage: null,
    config: null,
  };
  const draft = await releaseDraftOf(at.deps, p, plan);
  // An abort that arrives after the release ends the deployment `aborted`, but the database it started stays.
  const ended = await recorded(() => deploymentSteps.succeed(deps.cmd, id, { release: draft }));
  if (previous && !moveTo) await was.runtime.remove(previous, 1).catch(() => undefined);
  if (ended.events[0]?.type !== 'DeploymentSucceeded') return;
  await wentLive(at.deps, id, row.id, ended.events, log);
  await pruneReleases(at.deps, row.id, log).catch(() => undefined);
}
