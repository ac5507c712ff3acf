import { randomUUID } from 'node:crypto';
import type { DeploymentRequest } from '../../commands/deployment/aggregate.js';
import { deploymentSteps } from '../../commands/deployment/handlers.js';
import { currentRelease, releasesToPrune, type KeptRelease } from '../../commands/release/aggregate.js';
import type { ReleaseConfig } from '../../commands/release/events.js';
import { loadReleases, recordImagePruned, recordRelease } from '../../commands/release/handlers.js';
import { service as serviceAggregate } from '../../commands/service/aggregate.js';
import { releasePolicyOf } from '../../commands/service/fields.js';
import type { ResourceSettings } from '../../commands/service/resources.js';
import { fromHealthCheckColumn, healthCheckColumn } from '../../commands/service/health-check.js';
import { loadAggregate } from '../../commands/shared/execute.js';
import { LABEL } from '../runtime/container-runtime.js';
import { createRedactor, secretValues } from '../secrets/redactor.js';
import type { DeploymentLog } from './deployment-log.js';
import { DeployFailure, type Prepared, type RunDeps } from './deployment-run.js';

/** What a run starts: the image, and the configuration it runs with. */
export interface RunPlan {
  /** What the engine runs: a kept release's image id, or the tag just built or pulled. */
  image: string;
  /** How people know the image (its tag or reference). */
  imageRef: string;
  env: Record<string, string>;
  internalPort: number;
  web: boolean;
  buildMethod: 'dockerfile' | 'packbuilder' | 'image' | null;
  commitSha: string | null;
  commitMessage: string | null;
  /** The limits it runs with (null: the installation's defaults). */
  resources: ResourceSettings | null;
  /** The health check that gates it, as the read model stores it (null: its kind's default). */
  healthCheck: string | null;
  /** The configuration to record with the release; null: snapshot today's (`p`) when it goes live. */
  config: ReleaseConfig | null;
}

/**
 * The plan of a deployment that runs a kept release (rollback, config, start, restart): no clone, no build.
 * A rollback with `config: "release"` runs exactly what the release ran; everything else runs the release's
 * image with today's variables and settings, except start, restart and config, which keep the release's own
 * variables (a change of limits or a restart must not ship variable edits nobody deployed).
 */
export async function planFromRelease(deps: RunDeps, id: string, request: DeploymentRequest, p: Prepared, log: DeploymentLog): Promise<RunPlan> {
  const { row } = p;
  const history = await loadReleases(deps.cmd, row.id);
  const release = history.releases.find((r) => r.releaseId === request.releaseId);
  if (!release) throw new DeployFailure(`release ${request.releaseId} does not exist for this service`);
  if (!release.available || (await deps.runtime.imageInfo(release.imageId)) === null) {
    throw new DeployFailure(`the image of release v${release.version} is gone (pruned or removed); deploy again`);
  }
  const ownConfig = request.kind !== 'rollback' || request.config === 'release';
  const env = ownConfig ? await sealedEnv(deps, release) : p.env;
  // The release's own values may differ from today's: they are redacted from the log as well.
  if (ownConfig) log.setRedactor(createRedactor([...p.secrets, ...secretValues(Object.entries(env).map(([key, value]) => ({ key, value, resolved: value })))]));
  const exact = request.kind === 'rollback' && request.config === 'release';
  const internalPort = exact ? release.config.internalPort : row.internal_port;
  const runtimeMode = exact ? release.config.runtimeMode : row.runtime_mode;
  log.system(
    `Running release v${release.version} (${release.imageRef}, image ${release.imageId.slice(7, 19)}) without clone or build, with ${
      ownConfig ? 'its own variables' : 'today’s variables'
    }`,
  );
  await deploymentSteps.progress(deps.cmd, id, { type: 'DeploymentImageBuilt', data: { imageTag: release.imageRef, buildMethod: release.buildMethod ?? 'image', imageId: release.imageId, digest: null } });
  return {
    image: release.imageId,
    imageRef: release.imageRef,
    env,
    internalPort,
    web: runtimeMode !== 'worker',
    resources: exact ? (release.config.resources ?? null) : row.resources,
    healthCheck: exact ? healthCheckColumn(release.config.healthCheck) : row.health_check,
    buildMethod: release.buildMethod,
    commitSha: release.commitSha,
    commitMessage: release.commitMessage,
    config: exact ? release.config : ownConfig ? { ...snapshotSettings(p), env: release.config.env } : null,
  };
}

async function sealedEnv(deps: RunDeps, release: KeptRelease): Promise<Record<string, string>> {
  const opened = await deps.keyring.decrypt(release.config.env);
  if (opened === null) throw new DeployFailure(`the variables of release v${release.version} can no longer be read (its data key is gone)`);
  return JSON.parse(opened) as Record<string, string>;
}

const snapshotSettings = ({ row }: Prepared) => ({
  startCommand: row.start_command,
  internalPort: row.internal_port,
  runtimeMode: row.runtime_mode,
  resources: row.resources,
  healthCheck: fromHealthCheckColumn(row.health_check),
});

/** Records the release a deployment made live; returns it (or the one recorded by an earlier attempt). */
export async function recordGoneLive(deps: RunDeps, id: string, p: Prepared, plan: RunPlan): Promise<KeptRelease | undefined> {
  const imageId = (await deps.runtime.imageInfo(plan.image).catch(() => null))?.id ?? plan.image;
  const config = plan.config ?? { ...snapshotSettings(p), env: await deps.keyring.encrypt(p.row.id, JSON.stringify(plan.env)) };
  const recorded = await recordRelease(deps.cmd, p.row.id, {
    releaseId: randomUUID(),
    deploymentId: id,
    imageId,
    imageRef: plan.imageRef,
    commitSha: plan.commitSha,
    commitMessage: plan.commitMessage,
    buildMethod: plan.buildMethod,
    config,
  });
  const [event] = recorded.events;
  if (event?.type === 'ReleaseRecorded') return { ...event.data, available: true };
  // Recorded by an earlier attempt: as the log has it.
  return (await loadReleases(deps.cmd, p.row.id)).releases.find((r) => r.deploymentId === id);
}

/** The release running before `deploymentId` went live, if its image is still there to go back to. */
export async function releaseBefore(deps: RunDeps, serviceId: string, previousDeploymentId: string | null): Promise<KeptRelease | null> {
  if (previousDeploymentId === null) return null;
  const history = await loadReleases(deps.cmd, serviceId);
  try {
    return currentRelease(history, previousDeploymentId, 'roll back to');
  } catch {
    return null;
  }
}

/**
 * Removes the images of releases older than the service's `releasesKept` and records them as pruned. Only
 * images Slipway built for the service are removed; an image service's or a database engine's image is the
 * operator's, and its release is only marked (it can no longer be rolled back to).
 */
export async function pruneReleases(deps: RunDeps, serviceId: string, log: DeploymentLog) {
  const { state } = await loadAggregate(deps.cmd, serviceAggregate, serviceId);
  if (state.status !== 'live' || !state.service) return;
  const { releasesKept } = releasePolicyOf(state.service);
  const history = await loadReleases(deps.cmd, serviceId);
  const prune = releasesToPrune(history, releasesKept, state.release?.deploymentId ?? null);
  if (prune.length === 0) return;
  const built = await deps.runtime.listImages({ [LABEL.service]: serviceId });
  for (const release of prune) {
    for (const image of built.filter((i) => i.id === release.imageId)) for (const tag of image.tags) await deps.runtime.removeImage(tag);
    await recordImagePruned(deps.cmd, serviceId, release.releaseId);
    log.system(`Pruned the image of release v${release.version} (the service keeps the last ${releasesKept})`);
  }
}
