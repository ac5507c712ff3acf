import type { CommandContext } from '../shared/command-context.js';
import { conflict } from '../shared/domain-error.js';
import { execute, loadAggregate } from '../shared/execute.js';
import { deployment } from '../deployment/aggregate.js';
import { queueDeployment } from '../deployment/handlers.js';
import { assertMovable, live, service } from '../service/aggregate.js';
import { currentRelease, releaseHistory, rollbackTarget, type NewRelease } from './aggregate.js';

export const recordRelease = (ctx: CommandContext, serviceId: string, release: NewRelease) =>
  execute(ctx, releaseHistory, serviceId, (s) => releaseHistory.decide.record(s, release));

export const recordImagePruned = (ctx: CommandContext, serviceId: string, releaseId: string) =>
  execute(ctx, releaseHistory, serviceId, (s) => releaseHistory.decide.prune(s, releaseId));

export const loadReleases = async (ctx: CommandContext, serviceId: string) => (await loadAggregate(ctx, releaseHistory, serviceId)).state;

/**
 * The release history with the current deployment's release in it. Its success carries the release, and the
 * deployer records it right after: a request in between records it here (once; recording is idempotent).
 */
async function releasesWithCurrent(ctx: CommandContext, serviceId: string, currentDeploymentId: string | null) {
  const history = await loadReleases(ctx, serviceId);
  if (!currentDeploymentId || history.releases.some((r) => r.deploymentId === currentDeploymentId)) return history;
  const draft = (await loadAggregate(ctx, deployment, currentDeploymentId)).state.wentLive;
  if (!draft) return history;
  await recordRelease(ctx, serviceId, { ...draft, deploymentId: currentDeploymentId });
  return loadReleases(ctx, serviceId);
}

/** A rollback deployment of the asked-for release, or of the one before the current. */
export async function rollbackService(ctx: CommandContext, serviceId: string, releaseId: string | undefined, config: 'release' | 'current') {
  const { state } = await loadAggregate(ctx, service, serviceId);
  live(state);
  const target = rollbackTarget(await releasesWithCurrent(ctx, serviceId, state.release?.deploymentId ?? null), state.release?.deploymentId ?? null, releaseId);
  return queueDeployment(ctx, serviceId, { kind: 'rollback', trigger: 'manual', releaseId: target.releaseId, config });
}

/** A database's current release, run on another node with a copy of its data (a `move` deployment). */
export async function moveService(ctx: CommandContext, serviceId: string, toNodeId: string | null) {
  const { state } = await loadAggregate(ctx, service, serviceId);
  assertMovable(state, toNodeId);
  const current = currentRelease(await releasesWithCurrent(ctx, serviceId, state.release?.deploymentId ?? null), state.release?.deploymentId ?? null, 'move');
  return queueDeployment(ctx, serviceId, { kind: 'move', trigger: 'manual', releaseId: current.releaseId, config: 'release', toNodeId });
}

/** Runs the current release again: after a stop, as a restart, or with changed limits or health check. */
export async function rerunCurrentRelease(ctx: CommandContext, serviceId: string, kind: 'start' | 'restart' | 'config') {
  const { state } = await loadAggregate(ctx, service, serviceId);
  live(state);
  if (kind === 'start' && !state.stopped) throw conflict('the service is not stopped; restart it instead');
  const current = currentRelease(await releasesWithCurrent(ctx, serviceId, state.release?.deploymentId ?? null), state.release?.deploymentId ?? null, kind);
  return queueDeployment(ctx, serviceId, { kind, trigger: 'manual', releaseId: current.releaseId, config: 'release' });
}
