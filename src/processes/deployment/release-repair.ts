import { deployment } from '../../../commands/deployment/aggregate.js';
import { parseDeploymentEvent } from '../../../commands/deployment/events.js';
import type { ReleaseDraft } from '../../../commands/release/events.js';
import { streamOf } from '../../../commands/shared/aggregate.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { liveDeploymentsWithoutRelease } from '../../../projections/release-queries.js';
import type { Logger } from '../../logger.js';
import type { RunDeps } from './toolkit/run-deps.js';
import { recordGoneLive } from './runs/release-run.js';

/**
 * At start: every deployment that went live has its release in the service's history. The release rides on the
 * deployment's `DeploymentSucceeded` (one append); a crash or a refused append between that and `ReleaseRecorded`
 * is repaired here, from the same event (or, for a success a restart recorded, from its container's start). Returns the image ids of the releases it recorded (the start-up sweep
 * keeps them). A success recorded without a release (older logs) has nothing to record from, and is logged.
 */
export async function recordMissingReleases(deps: Pick<RunDeps, 'cmd' | 'db'>, log: Logger): Promise<Set<string>> {
  const images = new Set<string>();
  for (const d of await liveDeploymentsWithoutRelease(deps.db)) {
    const draft = await releaseDraftInLog(deps.cmd, d.id);
    if (!draft) {
      log.warn('a deployment went live without a release to record: it cannot be rolled back to', { deployment: d.id, service: d.service_id });
      continue;
    }
    const release = await recordGoneLive({ ...deps.cmd, correlationId: d.id, causationId: null }, d.service_id, d.id, draft);
    if (release) {
      images.add(release.imageId);
      log.info('recorded the release of a deployment that went live before a restart', { deployment: d.id, version: release.version });
    }
  }
  return images;
}

/**
 * The release a deployment made (or was about to make) live, as its stream holds it: carried by its success, or,
 * for a success recorded by a restart that found the route switched, by the start of its container.
 */
export async function releaseDraftInLog(cmd: CommandContext, deploymentId: string): Promise<ReleaseDraft | undefined> {
  const events = (await cmd.store.readStream(streamOf(deployment.category, deploymentId))).map((e) => parseDeploymentEvent(e));
  for (const e of events) if (e?.type === 'DeploymentSucceeded' && e.data.release) return e.data.release;
  for (const e of events) if (e?.type === 'DeploymentContainerStarted' && e.data.release) return e.data.release;
  return undefined;
}
