import { randomUUID } from 'node:crypto';
import type { DeploymentRequest } from '../../../../commands/deployment/aggregate.js';
import type { DeploymentEvent } from '../../../../commands/deployment/events.js';
import { deploymentSteps } from '../../../../commands/deployment/handlers.js';
import { currentRelease, releasesToPrune, type KeptRelease } from '../../../../commands/release/aggregate.js';
import type { ReleaseConfig, ReleaseDraft } from '../../../../commands/release/events.js';
import { loadReleases, recordImagePruned, recordRelease } from '../../../../commands/release/handlers.js';
import { service as serviceAggregate } from '../../../../commands/service/aggregate.js';
import { releasePolicyOf } from '../../../../commands/service/fields.js';
import type { ResourceSettings } from '../../../../commands/service/resources.js';
import { fromHealthCheckColumn, healthCheckColumn } from '../../../../commands/service/health-check.js';
import type { CommandContext } from '../../../../commands/shared/command-context.js';
import { loadAggregate } from '../../../../commands/shared/execute.js';
import { LABEL } from '../../../runtime/container-runtime.js';
import { createRedactor, secretValues } from '../../../secrets/redactor.js';
import type { DeploymentLog } from '../toolkit/deployment-log.js';
import { recorded } from '../../recorded.js';
import type { Prepared } from '../toolkit/prepared.js';
import type { RunDeps } from '../toolkit/run-deps.js';
import { DeployFailure } from '../toolkit/run-step.js';

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

/**
 * The release a deployment is about to make live, to record with its success (one append); undefined when it
 * cannot be made (its variables could not be sealed): the deployment then goes live without a release.
 */
export async function releaseDraftOf(deps: RunDeps, p: Prepared, plan: RunPlan): Promise<ReleaseDraft | undefined> {
  try {
    const imageId = (await deps.runtime.imageInfo(plan.image).catch(() => null))?.id ?? plan.image;
    const config = plan.config ?? { ...snapshotSettings(p), env: await deps.keyring.encrypt(p.row.id, JSON.stringify(plan.env)) };
    return {
      releaseId: randomUUID(),
      imageId,
      imageRef: plan.imageRef,
      commitSha: plan.commitSha,
      commitMessage: plan.commitMessage,
      buildMethod: plan.buildMethod,
      config,
    };
  } catch {
    return undefined;
  }
}

/**
 * Records in the service's release history the release a deployment's success carries; returns it (or the one
 * recorded by an earlier attempt, or by the start-up repair).
 */
export async function recordGoneLive(cmd: CommandContext, serviceId: string, deploymentId: string, draft: ReleaseDraft): Promise<KeptRelease | undefined> {
  const appended = await recordRelease(cmd, serviceId, { ...draft, deploymentId });
  const [event] = appended.events;
  if (event?.type === 'ReleaseRecorded') return { ...event.data, available: true };
  return (await loadReleases(cmd, serviceId)).releases.find((r) => r.deploymentId === deploymentId);
}

/**
 * When the watch of a release going live now ends (recorded with its success, so a restart inside the window
 * resumes it); undefined when it is not watched (not a deploy, or the service's `watchSeconds` is 0).
 */
export async function watchUntilOf(cmd: CommandContext, serviceId: string, watched: boolean, now = Date.now()): Promise<string | undefined> {
  if (!watched) return undefined;
  // The route has switched by now: a store that does not answer here costs the watch, never the success.
  const state = (await loadAggregate(cmd, serviceAggregate, serviceId).catch(() => null))?.state;
  const seconds = state?.service ? releasePolicyOf(state.service).watchSeconds : 0;
  return seconds > 0 ? new Date(now + seconds * 1000).toISOString() : undefined;
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
 * Prunes the releases older than the service's `releasesKept`: each is first recorded as pruned (it can no longer
 * be rolled back to), and only then is its image removed, so a release the log calls available always has its
 * image. Only images Slipway built for the service are removed; an image service's or a database engine's image
 * is the operator's, and its release is only marked. A removal cut short (a crash, an engine error) is finished
 * by the next pass here or by the deployer's start-up sweep: both remove images of pruned releases only.
 */
export async function pruneReleases(deps: RunDeps, serviceId: string, log: DeploymentLog) {
  const { state } = await loadAggregate(deps.cmd, serviceAggregate, serviceId);
  if (state.status !== 'live' || !state.service) return;
  const { releasesKept } = releasePolicyOf(state.service);
  for (const release of releasesToPrune(await loadReleases(deps.cmd, serviceId), releasesKept, state.release?.deploymentId ?? null)) {
    await recordImagePruned(deps.cmd, serviceId, release.releaseId);
    log.system(`Pruned release v${release.version} (the service keeps the last ${releasesKept}); its image is removed`);
  }
  const history = await loadReleases(deps.cmd, serviceId);
  const kept = new Set(history.releases.filter((r) => r.available).map((r) => r.imageId));
  const pruned = new Set(history.releases.filter((r) => !r.available && !kept.has(r.imageId)).map((r) => r.imageId));
  if (pruned.size === 0) return;
  for (const image of await deps.runtime.listImages({ [LABEL.service]: serviceId })) {
    if (pruned.has(image.id)) for (const tag of image.tags) await deps.runtime.removeImage(tag);
  }
}

/**
 * Records in the service's release history the release its success carries (`ended`: the append that ended the
 * deployment). If that fails, the deployer's start-up repair records it from the same event.
 */
export async function wentLive(deps: RunDeps, id: string, serviceId: string, ended: readonly DeploymentEvent[], log: DeploymentLog) {
  const succeeded = ended.find((e) => e.type === 'DeploymentSucceeded');
  const draft = succeeded?.type === 'DeploymentSucceeded' ? succeeded.data.release : undefined;
  const live = draft ? await recorded(() => recordGoneLive(deps.cmd, serviceId, id, draft)).catch(() => undefined) : undefined;
  if (!live) {
    log.system(
      draft
        ? 'The release could not be recorded yet; Slipway records it at its next start'
        : 'The release could not be recorded (its variables could not be sealed); this deployment cannot be rolled back to',
    );
    await log.flush();
  }
  return live;
}
